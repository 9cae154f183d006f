// Roles, node capabilities and file confinement of flows run by the flow service, with real
// files and symlinks in a temp dir and the real csi.file / csi.record nodes.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { CsiFrame, FlowData, WiflowPlugin } from '@wiflow/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStudio, upperFlow, type TestStudio, type TestUser } from '../testing/test-plugins.js';

interface CsiModule {
  default: WiflowPlugin;
  encodeRecording(frames: CsiFrame[]): Uint8Array;
}

/** A few hand-made frames in a wiflow recording: a real capture file csi.file can read. */
function capture(csi: CsiModule, count = 5): Buffer {
  const frames: CsiFrame[] = Array.from({ length: count }, (_, i) => ({
    timestamp: 1_000_000 + i * 10_000, time: 1_000 + i * 10, sourceId: 'hand', link: { tx: 'a', rx: 'b' }, centerFrequencyHz: 2.412e9, bandwidthHz: 20e6,
    subcarriers: Int16Array.from([-2, -1, 1, 2]), ntx: 1, nrx: 1, nsc: 4, csi: { re: Float32Array.from([1, 2, 3, 4]), im: Float32Array.from([0, 1, 0, 1]) }, format: 'wiflow', provenance: 'replay',
  }));
  return Buffer.from(csi.encodeRecording(frames));
}

function fileToRecord(source: string, target: string): FlowData {
  return {
    nodes: [
      { id: 'reader', position: { x: 0, y: 0 }, data: { nodeType: 'csi.file', config: { path: source } } },
      { id: 'rec', position: { x: 200, y: 0 }, data: { nodeType: 'csi.record', config: { path: target } } },
    ],
    edges: [{ id: 'e', source: 'reader', sourceHandle: 'frames', target: 'rec', targetHandle: 'frames' }],
  };
}

let s: TestStudio;
let csi: CsiModule;
let outside: string;
let extraRoot: string;
let exampleScenarios: string;
let passwdLike: string;
let captureBytes: Buffer;

beforeAll(async () => {
  csi = (await import('@wiflow/plugin-csi')) as unknown as CsiModule;
  const base = mkdtempSync(path.join(tmpdir(), 'wiflow-flow-access-'));
  outside = path.join(base, 'outside');
  extraRoot = path.join(base, 'shared-captures');
  mkdirSync(outside);
  mkdirSync(extraRoot);
  captureBytes = capture(csi);
  passwdLike = path.join(outside, 'passwd.wfr');
  writeFileSync(passwdLike, captureBytes);
  writeFileSync(path.join(outside, 'keep.wfr'), 'do not overwrite');
  writeFileSync(path.join(extraRoot, 'lab.wfr'), captureBytes);
  // An installation's examples: flows/ (none here) and scenarios/, the read-only root of every run.
  exampleScenarios = path.join(base, 'examples', 'scenarios');
  mkdirSync(path.join(base, 'examples', 'flows'), { recursive: true });
  mkdirSync(exampleScenarios);
  writeFileSync(path.join(exampleScenarios, 'shipped.wfr'), captureBytes);
  s = await startTestStudio({ plugins: [csi.default], studio: { fileRoots: [extraRoot], examplesDir: path.join(base, 'examples', 'flows') } });
});
afterAll(async () => {
  await s?.close();
});

async function createFlow(user: TestUser, name: string, data: FlowData): Promise<string> {
  return (await s.http.post('/api/v1/flows/').set(user.auth).send({ name, data }).expect(201)).body.id;
}

/** Run a flow through /api/v1/run and return status and body. */
async function run(user: TestUser, flowId: string) {
  const res = await s.http.post(`/api/v1/run/${flowId}`).set(user.auth).send({});
  return { status: res.status, body: res.body as { detail: string; code?: string; status?: string } };
}

describe('flow service roles', () => {
  it('a viewer reads but cannot create, change, upload, run or deploy', async () => {
    await s.http.get('/api/v1/flows/').set(s.vera.auth).expect(200);
    await s.http.get('/api/v1/studio/node-types').set(s.vera.auth).expect(200);
    const denied = await s.http.post('/api/v1/flows/').set(s.vera.auth).send({ name: 'mine', data: fileToRecord('/etc/passwd', '/tmp/x.wfr') }).expect(403);
    expect(denied.body).toMatchObject({ code: 'WIFLOW_STUDIO_FORBIDDEN' });
    expect(denied.body.detail).toMatch(/role viewer may not change anything/);
    await s.http.post('/api/v1/projects/').set(s.vera.auth).send({ name: 'p' }).expect(403);
    await s.http.post('/api/v2/files/').set(s.vera.auth).attach('file', Buffer.from('x'), 'x.txt').expect(403);
    await s.http.post('/api/v1/flows/upload/').set(s.vera.auth).attach('file', Buffer.from('{"name":"u"}'), 'u.json').expect(403);
    // A flow she owns from before (made in storage directly) still may not run or deploy.
    const own = await s.runtime.storage.flows.create({ name: 'legacy', userId: s.vera.id, data: upperFlow() as never });
    const ran = await run(s.vera, own.id);
    expect(ran.status).toBe(403);
    expect(ran.body.detail).toMatch(/flows of a viewer may not run/);
    await s.http.post(`/api/v1/build/${own.id}/flow`).set(s.vera.auth).send({}).expect(403);
    await s.http.post('/api/v1/studio/deployments').set(s.vera.auth).send({ flow_id: own.id }).expect(403);
    await s.http.patch(`/api/v1/flows/${own.id}`).set(s.vera.auth).send({ name: 'renamed' }).expect(403);
    await s.http.delete(`/api/v1/flows/${own.id}`).set(s.vera.auth).expect(403);
    // The webhook runs as the owner: a viewer's flow does not run that way either.
    await s.runtime.storage.flows.update(own.id, { webhook: true } as never);
    await s.http.post(`/api/v1/webhook/${own.id}`).send({ text: 'hi' }).expect(403);
  });

  it('node types say which capabilities they need', async () => {
    const types = (await s.http.get('/api/v1/studio/node-types').set(s.alice.auth).expect(200)).body as { type: string; capabilities: string[] }[];
    const of = (type: string) => types.find((t) => t.type === type)?.capabilities;
    expect(of('csi.file')).toEqual(['fs.read']);
    expect(of('csi.record')).toEqual(['fs.write']);
    expect(of('csi.nexmon-udp')).toEqual(['net.listen']);
    expect(of('csi.esp32-serial')).toEqual(['device', 'process']);
    expect(of('stest.upper')).toEqual([]);
  });

  it("refuses a flow using a capability its owner's role lacks, naming node and capability", async () => {
    const flowId = await createFlow(s.alice, 'serial', {
      nodes: [
        { id: 'tty', position: { x: 0, y: 0 }, data: { nodeType: 'csi.esp32-serial', config: { path: '/dev/null' } } },
        { id: 'rec', position: { x: 200, y: 0 }, data: { nodeType: 'csi.record', config: { path: 'serial.wfr' } } },
      ],
      edges: [{ id: 'e', source: 'tty', sourceHandle: 'frames', target: 'rec', targetHandle: 'frames' }],
    });
    const ran = await run(s.alice, flowId);
    expect(ran.status).toBe(403);
    expect(ran.body.code).toBe('WIFLOW_CAPABILITY_DENIED');
    expect(ran.body.detail).toBe('node tty (csi.esp32-serial) needs capability process, which role operator does not allow');
    const deployed = await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: flowId }).expect(403);
    expect(deployed.body.detail).toMatch(/node tty \(csi\.esp32-serial\) needs capability process/);
  });
});

describe('file nodes are confined to the owner\'s file folder and studio.fileRoots', () => {
  it('reads an uploaded capture and records next to it', async () => {
    const up = await s.http.post('/api/v2/files/').set(s.alice.auth).attach('file', captureBytes, 'mine.wfr').expect(201);
    const flowId = await createFlow(s.alice, 'inside', fileToRecord(path.join(s.dataDir, up.body.path), 'copies/out.wfr'));
    mkdirSync(path.join(s.dataDir, 'studio-files', s.alice.id, 'copies'), { recursive: true });
    const ran = await run(s.alice, flowId);
    expect(ran.status, JSON.stringify(ran.body)).toBe(200);
    expect(existsSync(path.join(s.dataDir, 'studio-files', s.alice.id, 'copies', 'out.wfr'))).toBe(true);
    const lab = await createFlow(s.alice, 'configured root', fileToRecord(path.join(extraRoot, 'lab.wfr'), path.join(extraRoot, 'lab-copy.wfr')));
    expect((await run(s.alice, lab)).status).toBe(200);
    expect(existsSync(path.join(extraRoot, 'lab-copy.wfr'))).toBe(true);
  });

  it("reads the installation's example scenarios but never writes there", async () => {
    const shipped = path.join(exampleScenarios, 'shipped.wfr');
    const read = await createFlow(s.alice, 'example read', fileToRecord(shipped, 'from-examples.wfr'));
    const ran = await run(s.alice, read);
    expect(ran.status, JSON.stringify(ran.body)).toBe(200);
    expect(existsSync(path.join(s.dataDir, 'studio-files', s.alice.id, 'from-examples.wfr'))).toBe(true);
    for (const target of [shipped, path.join(exampleScenarios, 'new.wfr')]) {
      const write = await createFlow(s.alice, `example write ${target}`, fileToRecord(shipped, target));
      const refused = await run(s.alice, write);
      expect(refused.status, target).toBe(500);
      expect(refused.body.detail).toContain(`file ${JSON.stringify(target)} is not available to this flow`);
    }
    expect(readFileSync(shipped)).toEqual(captureBytes);
    expect(existsSync(path.join(exampleScenarios, 'new.wfr'))).toBe(false);
  });

  it('a job reading a truncated capture fails, naming the file and the byte offset', async () => {
    const cut = captureBytes.subarray(0, captureBytes.length - 7);
    const up = await s.http.post('/api/v2/files/').set(s.alice.auth).attach('file', cut, 'cut.wfr').expect(201);
    const flowId = await createFlow(s.alice, 'truncated', fileToRecord(path.join(s.dataDir, up.body.path), 'cut-copy.wfr'));
    const ran = await run(s.alice, flowId);
    expect(ran.status).toBe(500);
    expect(ran.body.status).toBe('failed');
    expect(ran.body.detail).toMatch(/cut\.wfr: .* at byte offset \d+ \(wiflow\)/);
  });

  it('refuses paths outside, .., symlinks out and missing files with one message that reveals nothing', async () => {
    const own = path.join(s.dataDir, 'studio-files', s.alice.id);
    mkdirSync(own, { recursive: true });
    symlinkSync(passwdLike, path.join(own, 'sneaky.wfr'));
    symlinkSync(outside, path.join(own, 'out-dir'));
    symlinkSync(path.join(outside, 'keep.wfr'), path.join(own, 'keep-link.wfr'));
    writeFileSync(path.join(own, 'fine.wfr'), captureBytes);
    const reads = ['/etc/passwd', passwdLike, path.join(outside, 'missing.wfr'), '../../outside/passwd.wfr', 'sneaky.wfr', 'out-dir/passwd.wfr', 'missing-inside.wfr'];
    for (const source of reads) {
      const flowId = await createFlow(s.alice, `read ${source}`, fileToRecord(source, 'ok.wfr'));
      const ran = await run(s.alice, flowId);
      expect(ran.status, source).toBe(500);
      expect(ran.body.status).toBe('failed');
      expect(ran.body.detail).toContain(`file ${JSON.stringify(source)} is not available to this flow: it does not exist or lies outside the folders this flow may use`);
      expect(ran.body.detail).not.toMatch(/ENOENT|EACCES|root:/);
    }
    const writes = [path.join(outside, 'keep.wfr'), 'keep-link.wfr', 'out-dir/new.wfr', '../escape.wfr', path.join(outside, 'new.wfr')];
    for (const target of writes) {
      const flowId = await createFlow(s.alice, `write ${target}`, fileToRecord('fine.wfr', target));
      const ran = await run(s.alice, flowId);
      expect(ran.status, target).toBe(500);
      expect(ran.body.detail).toContain(`file ${JSON.stringify(target)} is not available to this flow`);
    }
    expect(readFileSync(path.join(outside, 'keep.wfr'), 'utf8')).toBe('do not overwrite');
    expect(existsSync(path.join(outside, 'new.wfr'))).toBe(false);
    expect(existsSync(path.join(path.dirname(own), 'escape.wfr'))).toBe(false);
  });

  it('a deploy whose file source cannot read its file answers failed at once, naming node and file, and writes nothing', async () => {
    const own = path.join(s.dataDir, 'studio-files', s.alice.id);
    mkdirSync(own, { recursive: true });
    const flowId = await createFlow(s.alice, 'deploy a missing file', fileToRecord('not-there.wfr', 'never.wfr'));
    const answer = (await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: flowId }).expect(201)).body;
    expect(answer).toMatchObject({ status: 'failed', error: expect.stringMatching(/^node reader \(csi\.file\) failed to start: file "not-there\.wfr" is not available to this flow/) });
    expect(existsSync(path.join(own, 'never.wfr'))).toBe(false);
    // A failed deployment does not block its flow: it deploys once the file is there.
    writeFileSync(path.join(own, 'not-there.wfr'), captureBytes);
    const next = (await s.http.post('/api/v1/studio/deployments').set(s.alice.auth).send({ flow_id: flowId }).expect(201)).body;
    expect(next.status).not.toBe('failed');
    for (const id of [answer.id, next.id]) await s.http.delete(`/api/v1/studio/deployments/${id}`).set(s.alice.auth).expect(204);
  });
});

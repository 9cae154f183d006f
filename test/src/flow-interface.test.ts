// One flow, three callers, one path: `wiflow run` (a child process), the flow service's run API
// (real HTTP) and the flow's MCP tool (the MCP SDK client) all reach Runtime.runJob, where the
// compiler applies the flow's input bindings. The flow is the documented example
// estimate-poses-from-csi.json, whose `capture` input is bound to csi.file's `path`.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createLogger, Runtime, type PoseFrame } from '@wiflow/core';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordHomeCapture } from './support/home-capture.js';
import { ROOT, startServer, token, type ServerHandle } from './support/server.js';

const run = promisify(execFile);
const PASSWORD = 'flow-interface-admin-password-42';
const FLOW = path.join(ROOT, 'examples/flows/estimate-poses-from-csi.json');

/** A pose frame without the one field that measures this run (processing time) rather than the capture. */
function comparable(frames: PoseFrame[]): unknown[] {
  return frames.map(({ processingTimeMs: _timing, ...rest }) => rest);
}

describe('estimate-poses-from-csi.json through `wiflow run`, the run API and its MCP tool', () => {
  let server: ServerHandle | undefined;
  let capture: string;

  beforeAll(async () => {
    // A capture from links laid out as the model's environment: the simulated home, recorded by csi.record.
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-flow-interface-'));
    capture = path.join(dir, 'home.wfr');
    const recorder = await Runtime.create({ dataDir: path.join(dir, 'recorder'), searchFrom: [ROOT], config: { plugins: { allow: ['@wiflow/plugin-csi', '@wiflow/plugin-sim'] } }, logger: createLogger({ level: 'warn' }) });
    await recorder.start();
    await recordHomeCapture(recorder, capture, 3, 'flow interface test');
    await recorder.stop();
    const config = path.join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ studio: { examplesDir: path.join(ROOT, 'examples/flows') } }));
    server = await startServer({ args: ['--config', config], env: { WIFLOW_ADMIN_PASSWORD: PASSWORD, WIFLOW_DEFAULT_PIPELINE: 'off' } });
  }, 240_000);

  afterAll(async () => {
    expect(await server?.stop()).toBe(0);
  });

  it('returns the same pose frames to all three', { timeout: 420_000 }, async () => {
    // 1. The CLI, as examples/flows/README.md documents it.
    const cli = await run(process.execPath, [path.join(ROOT, 'core/bin/wiflow.js'), 'run', path.relative(ROOT, FLOW), '--input', `capture=${capture}`, '--data-dir', mkdtempSync(path.join(tmpdir(), 'wiflow-cli-'))], {
      cwd: ROOT,
      maxBuffer: 256 * 1024 * 1024,
      env: { ...process.env, WIFLOW_LOG_LEVEL: 'warn' },
    });
    const printed = JSON.parse(cli.stdout) as { status: string; outputs: { poses: PoseFrame[] }; error: string | null };
    expect(printed.status, printed.error ?? '').toBe('completed');
    const fromCli = printed.outputs.poses;
    expect(fromCli.length).toBeGreaterThan(0);
    expect(fromCli[0].metadata).toMatchObject({ modelId: 'wiflow-locate-v2', provenance: 'simulated' });

    // 2. The run API over HTTP, on the example flow the server loaded, with the capture uploaded.
    const url = server!.url;
    const auth = { Authorization: `Bearer ${await token(url, 'admin', PASSWORD)}` };
    const flows = (await (await fetch(`${url}/api/v1/flows/?header_flows=true`, { headers: auth })).json()) as { id: string; name: string; folder_id: string }[];
    const flow = flows.find((f) => f.name === 'estimate_poses_from_csi');
    expect(flow, flows.map((f) => f.name).join(', ')).toBeDefined();
    const form = new FormData();
    form.append('file', new Blob([readFileSync(capture)]), 'home.wfr');
    const upload = await fetch(`${url}/api/v2/files`, { method: 'POST', headers: auth, body: form });
    expect(upload.status).toBe(201);
    const fileId = ((await upload.json()) as { id: string }).id;
    const response = await fetch(`${url}/api/v1/run/${flow!.id}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ inputs: { capture: fileId } }) });
    const body = (await response.json()) as { outputs: { outputs: { results: Record<string, unknown> }[] }[] };
    expect(response.status, JSON.stringify(body).slice(0, 500)).toBe(200);
    const fromApi = Object.assign({}, ...body.outputs[0].outputs.map((o) => o.results)).poses as PoseFrame[];

    // 3. The flow's MCP tool, through the MCP SDK client.
    const client = new Client({ name: 'flow-interface-test', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/api/v1/mcp/project/${flow!.folder_id}/streamable`), { requestInit: { headers: auth } }));
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'estimate_poses_from_csi')?.inputSchema).toMatchObject({ properties: { capture: { type: 'string' } }, required: ['capture'] });
      const result = await client.callTool({ name: 'estimate_poses_from_csi', arguments: { capture: fileId } }, undefined, { timeout: 300_000 });
      expect(result.isError, JSON.stringify(result.content).slice(0, 500)).toBeFalsy();
      const fromMcp = (result.structuredContent as { poses: PoseFrame[] }).poses;

      expect(comparable(fromApi)).toEqual(comparable(fromCli));
      expect(comparable(fromMcp)).toEqual(comparable(fromCli));
    } finally {
      await client.close();
    }
  });

  it('`wiflow run` refuses an input the flow does not declare, naming the ones it does', async () => {
    const error = (await run(process.execPath, [path.join(ROOT, 'core/bin/wiflow.js'), 'run', FLOW, '--input', 'captur=x.wfr', '--data-dir', mkdtempSync(path.join(tmpdir(), 'wiflow-cli-'))], { cwd: ROOT }).catch((e: unknown) => e)) as { code: number; stderr: string };
    expect(error.code).toBe(1);
    expect(error.stderr).toContain('--input captur: this flow has no input named captur (inputs: capture)');
  });
});

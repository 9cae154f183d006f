// nats.subscribe connects when its node is created: a deploy whose NATS cannot be reached, or
// refuses the credentials, answers failed at once, naming the node and the URL (without the
// credentials), instead of answering running and failing a moment later.
import { spawn, type ChildProcess } from 'node:child_process';
import { defineNode, definePlugin, type Runtime } from '@wiflow/core';
import { buildFlow, createTestRuntime } from '@wiflow/core/testing';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import natsPlugin from '../index.js';
import { freePort, NATS_SERVER } from '../nats-server.test-helper.js';

const sinkPlugin = definePlugin({
  name: 'test:nats-start-sink',
  setup(ctx) {
    ctx.registerNode(defineNode({ type: 'test.sink', title: 'sink', category: 'testing', description: 'drops values', inputs: { in: { type: 'any' } }, outputs: {}, config: z.object({}), create: () => ({ receive: () => undefined }) }));
  },
});

let runtime: Runtime | null = null;
afterEach(async () => {
  await runtime?.stop(2000);
  runtime = null;
});

async function deploySubscriber(url: string) {
  runtime = await createTestRuntime({ plugins: [natsPlugin, sinkPlugin] });
  await runtime.start();
  const started = Date.now();
  const deployed = await runtime.deploy(buildFlow({ source: ['nats.subscribe', { url, subject: 'pose.>', durable: 'start-test' }], sink: ['test.sink'] }, ['source.out -> sink.in']));
  return { deployed, seconds: (Date.now() - started) / 1000 };
}

describe('nats.subscribe connects as it starts', () => {
  it('a NATS that is not there fails the deployment at once, naming node and URL, never the password', async () => {
    const port = await freePort();
    const { deployed, seconds } = await deploySubscriber(`nats://reader:s3cret-pass@127.0.0.1:${port}`);
    expect(deployed.outcome).toMatchObject({ status: 'failed', error: expect.stringMatching(new RegExp(`^node source \\(nats\\.subscribe\\) failed to start: cannot connect to NATS at nats://\\*\\*\\*@127\\.0\\.0\\.1:${port}: `)) });
    expect(JSON.stringify(deployed.outcome)).not.toContain('s3cret-pass');
    expect(seconds).toBeLessThan(10);
  });

  describe.skipIf(!NATS_SERVER)('a real nats-server that asks for credentials', () => {
    let server: ChildProcess | undefined;
    let port = 0;
    afterAll(() => {
      server?.kill('SIGKILL');
    });

    async function startServer(): Promise<void> {
      port = await freePort();
      server = spawn(NATS_SERVER!, ['-a', '127.0.0.1', '-p', String(port), '-js', '--user', 'reader', '--pass', 'right-pass'], { stdio: ['ignore', 'pipe', 'pipe'] });
      await new Promise<void>((resolve, reject) => {
        let log = '';
        const onData = (chunk: Buffer) => {
          log += chunk.toString();
          if (log.includes('Server is ready')) resolve();
        };
        server!.stdout!.on('data', onData);
        server!.stderr!.on('data', onData);
        server!.once('exit', (code) => reject(new Error(`nats-server exited (${code}): ${log}`)));
      });
    }

    it('refuses a wrong password at deploy time, and the right one deploys and runs', async () => {
      await startServer();
      const wrong = await deploySubscriber(`nats://reader:wrong-pass@127.0.0.1:${port}`);
      expect(wrong.deployed.outcome).toMatchObject({ status: 'failed', error: expect.stringMatching(/failed to start: cannot connect to NATS at nats:\/\/\*\*\*@127\.0\.0\.1:\d+: .*(authorization|auth)/i) });
      expect(JSON.stringify(wrong.deployed.outcome)).not.toContain('wrong-pass');
      await runtime!.stop(2000);
      runtime = null;

      const right = await deploySubscriber(`nats://reader:right-pass@127.0.0.1:${port}`);
      // Running, and still running a moment later (the consumer was made on the server).
      await new Promise((r) => setTimeout(r, 500));
      expect(right.deployed.outcome).toBeNull();
      expect(right.deployed.pipeline.counters().source).toBeDefined();
      await runtime!.undeploy(right.deployed.id, 0);
    });
  });
});

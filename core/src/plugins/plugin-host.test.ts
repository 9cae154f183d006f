import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createLogger, Runtime } from '../index.js';

/** Make a fake installed package under <dir>/node_modules/<name>. */
function fakePackage(dir: string, name: string, manifest: Record<string, unknown>, entry: string): void {
  const pkg = path.join(dir, 'node_modules', name);
  mkdirSync(pkg, { recursive: true });
  writeFileSync(path.join(pkg, 'package.json'), JSON.stringify({ name, version: '1.2.3', type: 'module', ...manifest }));
  writeFileSync(path.join(pkg, 'index.js'), entry);
}

const goodEntry = `export default { name: 'good-plugin', setup(ctx) { ctx.registerNode({ type: 'good.node', title: 'Good', category: 'x', description: '', inputs: {}, outputs: {}, config: { safeParse: (v) => ({ success: true, data: v }), parse: (v) => v }, create: () => ({}) }); } };`;

describe('plugin host', () => {
  it('loads compatible plugins, reports and skips incompatible, throwing and denied ones', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'wiflow-plugins-'));
    const plugin = (apiVersion: unknown) => ({ keywords: ['wiflow-plugin'], wiflow: { entry: 'index.js', apiVersion } });
    fakePackage(dir, 'good-plugin', plugin(3), goodEntry);
    fakePackage(dir, 'future-plugin', plugin('^4'), goodEntry.replace('good-plugin', 'future-plugin'));
    fakePackage(dir, 'throwing-plugin', plugin(3), `export default { name: 'throwing-plugin', setup() { throw new Error('no licence key'); } };`);
    fakePackage(dir, 'broken-import', plugin(3), `throw new Error('syntax of the past');`);
    fakePackage(dir, 'denied-plugin', plugin(3), goodEntry.replace('good-plugin', 'denied-plugin'));
    fakePackage(dir, 'not-a-plugin', { wiflow: { entry: 'index.js', apiVersion: 1 } }, goodEntry);
    fakePackage(dir, '@scope/scoped-plugin', plugin('3.x'), goodEntry.replace("'good-plugin'", "'@scope/scoped-plugin'").replace('good.node', 'scoped.node'));

    const logs: string[] = [];
    const runtime = await Runtime.create({
      dataDir: path.join(dir, 'data'),
      searchFrom: [dir],
      config: { plugins: { deny: ['denied-plugin'] } },
      logger: createLogger({ level: 'warn', write: (l) => logs.push(l) }),
    });
    const byName = Object.fromEntries(runtime.plugins.map((r) => [r.name, r]));
    expect(byName['good-plugin']).toMatchObject({ status: 'loaded', version: '1.2.3', nodeTypes: ['good.node'] });
    expect(byName['@scope/scoped-plugin']).toMatchObject({ status: 'loaded', nodeTypes: ['scoped.node'] });
    expect(byName['future-plugin'].status).toBe('failed');
    expect(byName['future-plugin'].reason).toContain('wants plugin API ^4');
    expect(byName['throwing-plugin'].status).toBe('failed');
    expect(byName['throwing-plugin'].reason).toContain('no licence key');
    expect(byName['broken-import'].reason).toContain('syntax of the past');
    expect(byName['denied-plugin']).toMatchObject({ status: 'denied', reason: 'denied by config plugins.deny' });
    expect(byName['not-a-plugin']).toBeUndefined();
    expect(runtime.registry.has('good.node')).toBe(true);
    expect(logs.some((l) => l.includes('throwing-plugin'))).toBe(true);

    const allowOnly = await Runtime.create({ dataDir: path.join(dir, 'data2'), searchFrom: [dir], config: { plugins: { allow: ['good-plugin'] } }, logger: createLogger({ level: 'silent' }) });
    expect(allowOnly.plugins.filter((r) => r.status === 'loaded').map((r) => r.name)).toEqual(['wiflow:io', 'good-plugin']);
  });
});

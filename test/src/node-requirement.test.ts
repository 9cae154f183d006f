// The Node requirement is one number (issue: the README said 20.19+ while a locked dependency
// needed Node 22, so `npm ci` warned EBADENGINE): every package.json, the README, the quickstart
// and every package in the lockfile agree with the root's `engines.node`.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readJson = (file: string) => JSON.parse(readFileSync(path.join(root, file), 'utf8'));

const required: string = readJson('package.json').engines.node;
const minimum = semver.minVersion(required)!.version;
const lock = readJson('package-lock.json') as { packages: Record<string, { engines?: unknown; optional?: boolean; os?: string[] }> };
const workspaces = Object.keys(lock.packages).filter((key) => key !== '' && !key.includes('node_modules/'));

describe('the Node requirement', () => {
  it('is a ">=X.Y" range of the root package.json, and every workspace package states the same', () => {
    expect(required).toMatch(/^>=\d+\.\d+$/);
    expect(workspaces.length).toBeGreaterThan(10);
    for (const dir of workspaces) expect(readJson(path.join(dir, 'package.json')).engines?.node, dir).toBe(required);
  });

  it('is the number the README and the quickstart give', () => {
    const stated = `Node.js ${required.slice(2)} or newer`;
    for (const doc of ['README.md', 'docs/quickstart.md']) expect(readFileSync(path.join(root, doc), 'utf8').replace(/\s+/g, ' '), doc).toContain(stated);
  });

  it('allows every locked package on the oldest Node it names (no EBADENGINE on `npm ci`)', () => {
    const refused: string[] = [];
    for (const [key, entry] of Object.entries(lock.packages)) {
      const engines = entry.engines as { node?: string } | undefined;
      // Platform-only binaries (another OS) are never installed here; npm checks their engines only when it installs them.
      if (!engines?.node || (entry.optional && entry.os && !entry.os.includes(process.platform))) continue;
      if (!semver.satisfies(minimum, engines.node)) refused.push(`${key} (${engines.node})`);
    }
    expect(refused).toEqual([]);
  });
});

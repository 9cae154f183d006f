import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileAccess } from '../index.js';
import { confinementFolders } from '../testing/index.js';

function tree() {
  const { base, root, outside } = confinementFolders('wiflow-file-access-');
  mkdirSync(path.join(root, 'sub'));
  writeFileSync(path.join(root, 'sub', 'in.dat'), 'inside');
  writeFileSync(path.join(outside, 'secret.txt'), 'secret');
  symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link-out.txt'));
  symlinkSync(outside, path.join(root, 'dir-out'));
  symlinkSync(path.join(root, 'sub', 'in.dat'), path.join(root, 'link-in.dat'));
  return { base, root, outside };
}

describe('FileAccess', () => {
  it('lets a confined run read and write inside its roots, relative paths anchored at the first root', async () => {
    const { root } = tree();
    const access = new FileAccess([root]);
    expect(await access.resolve('sub/in.dat', 'read')).toBe(path.join(root, 'sub', 'in.dat'));
    expect(await access.resolve(path.join(root, 'sub', 'in.dat'), 'read')).toBe(path.join(root, 'sub', 'in.dat'));
    expect(await access.resolve('link-in.dat', 'read')).toBe(path.join(root, 'sub', 'in.dat'));
    expect(await access.resolve('sub/new.wfr', 'write')).toBe(path.join(root, 'sub', 'new.wfr'));
  });

  it('refuses .., absolute paths outside, symlinks out (file and folder), missing files — all with one message', async () => {
    const { root, outside } = tree();
    const access = new FileAccess([root]);
    const refusals: [string, 'read' | 'write'][] = [
      ['/etc/passwd', 'read'],
      ['../outside/secret.txt', 'read'],
      ['sub/../sub/in.dat', 'read'],
      ['link-out.txt', 'read'],
      ['link-out.txt', 'write'],
      ['dir-out/secret.txt', 'read'],
      ['dir-out/new.txt', 'write'],
      [path.join(outside, 'new.txt'), 'write'],
      ['missing.dat', 'read'],
      ['/no/such/file', 'read'],
      ['no-such-dir/x.wfr', 'write'],
      ['a\u0000b', 'read'],
    ];
    for (const [requested, mode] of refusals) {
      const error = await access.resolve(requested, mode).then(() => null, (e: Error & { code: string }) => e);
      expect(error, `${mode} ${requested}`).not.toBeNull();
      expect(error!.code).toBe('WIFLOW_FILE_NOT_AVAILABLE');
      expect(error!.message).toBe(`file ${JSON.stringify(requested)} is not available to this flow: it does not exist or lies outside the folders this flow may use`);
    }
  });

  it('lets a run read from a read-only root but never write there', async () => {
    const { root, outside } = tree();
    const access = new FileAccess([root], [outside]);
    expect(await access.resolve(path.join(outside, 'secret.txt'), 'read')).toBe(path.join(outside, 'secret.txt'));
    expect(await access.resolve('dir-out/secret.txt', 'read')).toBe(path.join(outside, 'secret.txt'));
    for (const requested of [path.join(outside, 'secret.txt'), path.join(outside, 'new.txt'), 'dir-out/new.txt']) {
      await expect(access.resolve(requested, 'write'), requested).rejects.toMatchObject({ code: 'WIFLOW_FILE_NOT_AVAILABLE' });
    }
  });

  it('is unconfined for trusted callers', async () => {
    const { outside } = tree();
    expect(await FileAccess.unconfined.resolve(path.join(outside, 'secret.txt'), 'read')).toBe(path.join(outside, 'secret.txt'));
  });
});

import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { CoreErrors } from '../errors.js';

/** What a node means to do with a path. */
export type FileMode = 'read' | 'write';

/**
 * Where the nodes of one run may read and write files. Unconfined (no roots) for trusted
 * callers (the CLI, embedding code); confined for flows run on behalf of API users: a path
 * must lie, after every symlink is resolved, inside one of the roots. A refusal says the same
 * thing whether the path is missing or forbidden, so errors cannot probe the file system.
 */
export class FileAccess {
  /** Access without limits: for the CLI and code that embeds the runtime. */
  static readonly unconfined = new FileAccess(null);

  readonly roots: readonly string[] | null;
  /** Folders the run may read but never write (shipped example scenarios, say). */
  readonly readOnlyRoots: readonly string[];

  /**
   * `roots`: absolute folders the run may use (the first one anchors relative paths); null: anywhere.
   * `readOnlyRoots`: folders a confined run may also read from, never write to.
   */
  constructor(roots: readonly string[] | null, readOnlyRoots: readonly string[] = []) {
    this.roots = roots ? roots.map((r) => path.resolve(r)) : null;
    this.readOnlyRoots = readOnlyRoots.map((r) => path.resolve(r));
  }

  /** Whether paths are checked. */
  get confined(): boolean {
    return this.roots !== null;
  }

  /**
   * The absolute path a node may open for `mode`, or a `WIFLOW_FILE_NOT_AVAILABLE` error.
   * Reading needs the file to exist inside a root or a read-only root; writing needs its folder
   * inside a root (and, when the file exists, the file itself: a symlink there is followed and checked).
   */
  async resolve(requested: string, mode: FileMode): Promise<string> {
    if (!this.roots) return path.resolve(requested);
    const refuse = () => CoreErrors.fileNotAvailable(requested);
    if (typeof requested !== 'string' || requested === '' || requested.includes('\u0000')) throw refuse();
    // `..` is refused outright, not normalised away: a path that climbs is never what a user of a confined run means.
    if (requested.split(/[\\/]/).includes('..')) throw refuse();
    const roots = await realFolders(this.roots);
    if (!roots.length) throw refuse();
    if (mode === 'read') roots.push(...(await realFolders(this.readOnlyRoots)));
    const absolute = path.isAbsolute(requested) ? path.resolve(requested) : path.resolve(roots[0], requested);
    const inside = (candidate: string) => roots.some((root) => candidate === root || candidate.startsWith(root.endsWith(path.sep) ? root : root + path.sep));
    const existing = await realpath(absolute).catch(() => null);
    if (existing !== null) {
      if (!inside(existing)) throw refuse();
      return existing;
    }
    if (mode === 'read') throw refuse();
    const folder = await realpath(path.dirname(absolute)).catch(() => null);
    if (folder === null || !inside(folder)) throw refuse();
    return path.join(folder, path.basename(absolute));
  }
}

/** The real paths of the folders that exist (a missing root grants nothing). */
async function realFolders(folders: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const folder of folders) {
    const real = await realpath(folder).catch(() => null);
    if (real) out.push(real);
  }
  return out;
}

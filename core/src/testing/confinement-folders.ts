import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/** The folders of a file-confinement test: `root` a run may use, `outside` beside it, both under `base`. */
export interface ConfinementFolders {
  /** The temporary folder holding both (remove it when done). */
  base: string;
  root: string;
  outside: string;
}

/** Make fresh, empty confinement folders under the system's temporary folder (`prefix` names them). */
export function confinementFolders(prefix: string): ConfinementFolders {
  const base = mkdtempSync(path.join(tmpdir(), prefix));
  const root = path.join(base, 'root');
  const outside = path.join(base, 'outside');
  mkdirSync(root);
  mkdirSync(outside);
  return { base, root, outside };
}

/** The message a confined run refuses a path with (`FileAccess`): the same whether the file is missing or outside. */
export function confinementRefusal(requested: string): string {
  return `file ${JSON.stringify(requested)} is not available to this flow: it does not exist or lies outside the folders this flow may use`;
}

import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Packages whose code decides the bytes of a simulated sample: the simulator itself, and the
 * CSI signal chain that windows its frames.
 */
const SIMULATED_DATA_PACKAGES = ['@wiflow/plugin-sim', '@wiflow/plugin-csi'] as const;

/** This package's own files (under src/ or dist/, without extension) that turn simulator output into packed samples. */
const OWN_PRODUCER_FILES = ['sim/pose-dataset', 'sim/environment-from-scenario', 'sim/recipe', 'training/dataset'] as const;

/**
 * A fingerprint of the code that makes simulated samples: the version and every built file
 * (`dist/**\/*.js`, what `import` loads) of the simulator and the signal chain, plus this
 * package's own dataset code. Hashing the code, not a revision constant someone must remember
 * to bump, means no simulator change can keep old rooms alive; a change that moves nothing
 * (a comment) only costs one re-simulation.
 */
export function simulatorFingerprint(): string {
  const hash = createHash('sha256');
  const require = createRequire(import.meta.url);
  for (const name of SIMULATED_DATA_PACKAGES) {
    const manifest = require.resolve(`${name}/package.json`);
    const root = path.dirname(manifest);
    hash.update(`${name}@${(JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version ?? '?'}\n`);
    for (const file of codeFiles(path.join(root, 'dist'))) hash.update(`${path.relative(root, file)}\n`).update(readFileSync(file));
  }
  // src/ when tests run this file from source, dist/ when the CLI runs it built: both hash what runs.
  const ownRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  for (const base of OWN_PRODUCER_FILES) {
    const file = ['.js', '.ts'].map((ext) => path.join(ownRoot, base + ext)).find((f) => existsSync(f));
    if (file) hash.update(`${base}\n`).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 16);
}

/** Built JavaScript files under a directory, sorted so the hash does not depend on directory order. */
function codeFiles(directory: string): string[] {
  if (!existsSync(directory)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) found.push(...codeFiles(full));
    else if (entry.name.endsWith('.js')) found.push(full);
  }
  return found.sort();
}

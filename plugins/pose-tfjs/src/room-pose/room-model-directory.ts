import path from 'node:path';

/** A safe directory name for an environment id. */
export function environmentDirectoryName(environmentId: string): string {
  return environmentId.replace(/[^A-Za-z0-9._-]/g, '_');
}

/** Where the model of an environment lives under a models directory (`<models>/<environment id>/`). */
export function roomModelDirectory(modelsDir: string, environmentId: string): string {
  return path.join(modelsDir, environmentDirectoryName(environmentId));
}

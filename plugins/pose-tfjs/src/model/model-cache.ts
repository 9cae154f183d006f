import path from 'node:path';
import { PoseModel, SHIPPED_MODEL_DIR } from './pose-model.js';

const cache = new Map<string, Promise<PoseModel>>();

/** Load a model directory once per process (nodes of many flows share it); the shipped model by default. */
export function loadModelCached(directory: string = SHIPPED_MODEL_DIR): Promise<PoseModel> {
  const key = path.resolve(directory);
  let pending = cache.get(key);
  if (!pending) {
    pending = PoseModel.load(key);
    cache.set(key, pending);
    pending.catch(() => cache.delete(key));
  }
  return pending;
}

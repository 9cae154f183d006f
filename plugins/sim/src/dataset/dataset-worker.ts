/**
 * Worker-thread entry of `writeDataset`: receives session jobs, writes them with
 * `writeSession`, and posts progress and results back. One job at a time per worker.
 */
import { parentPort } from 'node:worker_threads';
import { writeSession, type SessionJob } from './session-writer.js';

parentPort?.on('message', (job: SessionJob) => {
  writeSession(job, (ticks) => parentPort!.postMessage({ type: 'ticks', ticks }))
    .then((result) => parentPort!.postMessage({ type: 'done', result }))
    .catch((error: Error) => parentPort!.postMessage({ type: 'error', index: job.index, message: error.message }));
});

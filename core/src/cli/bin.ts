#!/usr/bin/env node
import { buildProgram } from './program.js';

const { program, runtime } = await buildProgram(process.argv.slice(2)).catch((error: Error) => {
  process.stderr.write(`wiflow: ${error.message}\n`);
  process.exit(2);
});
try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`wiflow: ${(error as Error).message}\n`);
  process.exitCode = 1;
  // A command that failed after the runtime started (a start hook, listen) stops it: open
  // storage, worker threads or connections would otherwise keep the process alive.
  if (runtime.state !== 'created') await runtime.stop(5000).catch(() => undefined);
}

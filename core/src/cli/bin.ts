#!/usr/bin/env node
import { buildProgram } from './program.js';

const { program } = await buildProgram(process.argv.slice(2)).catch((error: Error) => {
  process.stderr.write(`wiflow: ${error.message}\n`);
  process.exit(2);
});
try {
  await program.parseAsync(process.argv);
} catch (error) {
  process.stderr.write(`wiflow: ${(error as Error).message}\n`);
  process.exitCode = 1;
}

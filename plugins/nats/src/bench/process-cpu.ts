import { readFileSync } from 'node:fs';

/** CPU seconds (user + system) a process has used, from /proc (Linux); NaN where it cannot be read. */
export function cpuSeconds(pid: number | undefined): number {
  if (!pid) return NaN;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

import fs from 'node:fs';

/** Linux's USER_HZ: the unit of the CPU times in /proc/<pid>/stat (100 on every common build). */
const TICKS_PER_SECOND = 100;

/**
 * Microseconds of CPU (user + system, every thread) a process has used so far, from
 * /proc/<pid>/stat; undefined where there is no /proc. Unlike requests per second, CPU per request
 * hardly moves when other processes compete for the cores.
 */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1e6) / TICKS_PER_SECOND : undefined;
  } catch {
    return undefined;
  }
}

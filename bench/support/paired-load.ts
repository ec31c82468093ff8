import type { ChildServer } from './child-server.js';
import { type LoadResult, warmedLoad } from './load.js';
import { log, pct, type SummaryRow } from './report.js';
import { median, medianRatio, pairedRounds } from './rounds.js';

/** One address under load and the headers each request carries (a bearer token). */
export interface Endpoint {
  url: string;
  headers: Record<string, string>;
}

/** Runs `work` against a started server and stops it (a bare baseline or the platform). */
export type ServerRun = <T>(work: (endpoint: Endpoint, server: ChildServer) => Promise<T>) => Promise<T>;

export interface PairedLoadOptions {
  bench: string;
  /** What is measured, for the summary rows: "tile GET (48 KiB)". */
  measure: string;
  /** What the baseline is: "bare node:http". */
  baseline: string;
  storeLabel: string;
  rounds: number;
  connections: number;
  seconds: number;
  warmupSeconds: number;
  /** A least ratio of requests per second, or none (info). */
  target?: number;
}

function cpuText(result: LoadResult): string {
  return result.cpuMicrosPerRequest === undefined ? '' : `, ${result.cpuMicrosPerRequest.toFixed(0)} us CPU/request`;
}

/**
 * The baseline and the platform loaded in alternating rounds: the platform's requests per second
 * over the baseline's (median of rounds), and where both servers' CPU could be read, the
 * baseline's CPU per request over ours (so that, like req/s, higher is better).
 */
export async function pairedLoad(options: PairedLoadOptions, bare: ServerRun, platform: ServerRun): Promise<SummaryRow[]> {
  const { storeLabel: label } = options;
  const load = (endpoint: Endpoint, server: ChildServer) =>
    warmedLoad(endpoint.url, {
      connections: options.connections,
      seconds: options.seconds,
      warmupSeconds: options.warmupSeconds,
      headers: endpoint.headers,
      serverPid: server.child.pid,
    });
  const measured = await pairedRounds<LoadResult>(
    options.rounds,
    () => bare(load),
    () => platform(load),
    (round, base, ours) =>
      log(
        `  ${label} round ${round}: bare ${base.requestsPerSecond.toFixed(0)} req/s (p99 ${base.p99} ms${cpuText(base)}), ` +
          `platform ${ours.requestsPerSecond.toFixed(0)} req/s (p99 ${ours.p99} ms${cpuText(ours)})`,
      ),
  );
  const ratio = medianRatio(measured, (result) => result.requestsPerSecond);
  const rates = (results: LoadResult[]) => median(results.map((result) => result.requestsPerSecond)).toFixed(0);
  const { target } = options;
  log(
    `  ${label}: platform / bare ${pct(ratio)} by req/s, median of ${options.rounds} rounds${target === undefined ? '' : `, target >= ${pct(target)}`}`,
  );
  const rows: SummaryRow[] = [
    {
      bench: options.bench,
      measure: `${options.measure}, platform req/s / ${options.baseline}, ${label} (medians ${rates(measured.target)} / ${rates(measured.baseline)})`,
      ratio: pct(ratio),
      target: target === undefined ? 'info' : `>= ${pct(target)}`,
      met: target === undefined ? undefined : ratio >= target,
    },
  ];
  const cpu = (results: LoadResult[]) => results.map((result) => result.cpuMicrosPerRequest);
  if ([...cpu(measured.target), ...cpu(measured.baseline)].every((micros) => micros !== undefined)) {
    // The steadier figure on a shared machine.
    const cpuRatio = 1 / medianRatio(measured, (result) => result.cpuMicrosPerRequest as number);
    const ours = median(cpu(measured.target) as number[]);
    const theirs = median(cpu(measured.baseline) as number[]);
    log(`  ${label}: server CPU per request, platform ${ours.toFixed(0)} us, bare ${theirs.toFixed(0)} us`);
    rows.push({
      bench: options.bench,
      measure: `${options.measure}, bare / platform server CPU per request, ${label} (${theirs.toFixed(0)} / ${ours.toFixed(0)} us)`,
      ratio: pct(cpuRatio),
      target: 'info',
      met: undefined,
    });
  }
  return rows;
}

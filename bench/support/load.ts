import autocannon from 'autocannon';
import { processCpuMicros } from './process-cpu.js';

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  /** The server's CPU time per request over the measured run, when its pid was given (Linux). */
  cpuMicrosPerRequest?: number;
}

export interface LoadOptions {
  connections: number;
  seconds: number;
  headers?: Record<string, string>;
  /** GET when absent; a POST sends the same body on every request. */
  method?: 'GET' | 'POST';
  body?: string;
}

/** Closed-loop load on one URL from this process (the server runs in another): 127.0.0.1 only. */
export async function load(url: string, options: LoadOptions): Promise<LoadResult> {
  if (!url.startsWith('http://127.0.0.1:')) throw new Error(`refusing to load ${url}: benchmarks stay on 127.0.0.1`);
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.seconds,
    headers: options.headers ?? {},
    method: options.method ?? 'GET',
    body: options.body,
  });
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  };
}

/** A short run first so that both servers are measured warm (JIT, statement caches, token cache). */
export async function warmedLoad(
  url: string,
  options: LoadOptions & { warmupSeconds: number; serverPid?: number },
): Promise<LoadResult> {
  await load(url, { ...options, seconds: options.warmupSeconds });
  const before = processCpuMicros(options.serverPid);
  const result = await load(url, options);
  const after = processCpuMicros(options.serverPid);
  if (before !== undefined && after !== undefined && result.requestsPerSecond > 0) {
    result.cpuMicrosPerRequest = (after - before) / (result.requestsPerSecond * options.seconds);
  }
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`);
  }
  return result;
}

import autocannon from 'autocannon';

export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
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
export async function warmedLoad(url: string, options: LoadOptions & { warmupSeconds: number }): Promise<LoadResult> {
  await load(url, { ...options, seconds: options.warmupSeconds });
  const result = await load(url, options);
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`);
  }
  return result;
}

import { performance } from 'node:perf_hooks';

/** Milliseconds at a percentile (0-100) of a list of latencies. */
export function percentile(latencies: number[], p: number): number {
  if (latencies.length === 0) return Number.NaN;
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/** One request, timed; a non-2xx answer is an error of the benchmark, not a slow number. */
export async function timedRequest(url: string, init: RequestInit): Promise<number> {
  const start = performance.now();
  const response = await fetch(url, init);
  await response.arrayBuffer();
  const elapsed = performance.now() - start;
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: ${response.status}`);
  return elapsed;
}

export interface Target {
  url: string;
  headers: Record<string, string>;
}

/**
 * Median latencies of sequential requests to two servers, alternating between them, after a
 * warm-up: whatever else the machine does slows both alike, so their ratio holds.
 */
export async function pairedMedians(a: Target, b: Target, requests: number): Promise<[number, number]> {
  for (let i = 0; i < 50; i += 1) {
    await timedRequest(a.url, { headers: a.headers });
    await timedRequest(b.url, { headers: b.headers });
  }
  const first: number[] = [];
  const second: number[] = [];
  for (let i = 0; i < requests; i += 1) {
    first.push(await timedRequest(a.url, { headers: a.headers }));
    second.push(await timedRequest(b.url, { headers: b.headers }));
  }
  return [percentile(first, 50), percentile(second, 50)];
}

/**
 * Latencies of reads sent by `readers` sequential loops, from when it starts until `until`
 * settles: what other callers see while a long change runs.
 */
export async function latenciesDuring<T>(
  urls: string[],
  headers: Record<string, string>,
  readers: number,
  until: () => Promise<T>,
): Promise<{ result: T; latencies: number[] }> {
  const latencies: number[] = [];
  let done = false;
  let next = 0;
  const loop = async () => {
    while (!done) latencies.push(await timedRequest(urls[next++ % urls.length] as string, { headers }));
  };
  const loops = Array.from({ length: readers }, loop);
  // Let the readers settle into a rhythm before the change starts.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const warm = latencies.length;
  try {
    const result = await until();
    done = true;
    // Reads still in flight waited on the change too: they count.
    await Promise.all(loops);
    return { result, latencies: latencies.slice(warm) };
  } finally {
    done = true;
    await Promise.all(loops);
  }
}

/**
 * As pairedMedians, with `before` run (untimed) before every request to `a`: what `a` costs right
 * after that change, against `b`.
 */
export async function pairedMediansAfter(
  before: () => Promise<void>,
  a: Target,
  b: Target,
  requests: number,
): Promise<[number, number]> {
  for (let i = 0; i < 10; i += 1) {
    await before();
    await timedRequest(a.url, { headers: a.headers });
    await timedRequest(b.url, { headers: b.headers });
  }
  const first: number[] = [];
  const second: number[] = [];
  for (let i = 0; i < requests; i += 1) {
    await before();
    first.push(await timedRequest(a.url, { headers: a.headers }));
    second.push(await timedRequest(b.url, { headers: b.headers }));
  }
  return [percentile(first, 50), percentile(second, 50)];
}

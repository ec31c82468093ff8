import fs from 'node:fs';
import path from 'node:path';
import type { ApiClient, ApiResponse } from '../../support/fixtures.js';

/** A bundle with its processings, as a client polls it. */
export async function bundleState(client: ApiClient, bundleId: string) {
  const response = await client.get(`/v1/bundles/${bundleId}?expand=processings`);
  if (response.status !== 200) throw new Error(`GET bundle answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response.body as {
    state: string;
    isFailed: boolean;
    isProcessing: boolean;
    processings: { id: string; state: string; failureReason?: string }[];
  };
}

/** What a load saw: how many answers of each status, and the requests that got no answer at all. */
export interface LoadTally {
  statuses: Map<number, number>;
  failures: string[];
}

/**
 * A bounded closed-loop load: `concurrency` callers send requests, taking the senders in turn,
 * until `requests` are sent, or, with `until`, until it holds and `after` more were sent (never
 * more than `requests`), each caller pausing `pauseMs` between its requests. Resolves with the
 * number sent. An answer in the error shape counts by
 * its status; a connection error or a 5xx outside the error shape is a failure.
 */
export async function countedLoad(
  senders: (() => Promise<ApiResponse>)[],
  options: { requests: number; concurrency: number; pauseMs?: number; until?: () => boolean; after?: number },
  tally: LoadTally,
): Promise<number> {
  let sent = 0;
  let afterCondition: number | undefined;
  const more = () => {
    if (sent >= options.requests) return false;
    if (!options.until) return true;
    if (afterCondition === undefined && options.until()) afterCondition = sent + (options.after ?? 0);
    return afterCondition === undefined || sent < afterCondition;
  };
  const caller = async () => {
    while (more()) {
      const send = senders[sent % senders.length] as () => Promise<ApiResponse>;
      sent += 1;
      try {
        const response = await send();
        tally.statuses.set(response.status, (tally.statuses.get(response.status) ?? 0) + 1);
        if (response.status >= 500 && typeof response.body !== 'object') {
          tally.failures.push(`${response.status} outside the error shape: ${String(response.body).slice(0, 200)}`);
        }
      } catch (error) {
        tally.failures.push(String((error as Error).cause ?? error));
      }
      if (options.pauseMs) await new Promise((resolve) => setTimeout(resolve, options.pauseMs));
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, caller));
  return sent;
}

/**
 * The processing work folders under `root` (any depth): directories holding a job's `input`
 * file. The worker makes one per job in its temporary directory (TMPDIR).
 */
export function jobFolders(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    if (entries.some((entry) => entry.name === 'input' && entry.isFile())) found.push(dir);
    for (const entry of entries) if (entry.isDirectory() && depth < 4) walk(path.join(dir, entry.name), depth + 1);
  };
  walk(root, 0);
  return found;
}

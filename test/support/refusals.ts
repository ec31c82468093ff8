import { expect } from 'vitest';

/** What a refusal answers: the status, the spec's error code, and (optionally) what its message says. */
export interface Refusal {
  status: number;
  error: string;
  message?: string | RegExp;
}

interface Answer {
  status: number;
  body: any;
}

/**
 * Sends a request that must be refused, checks its answer is the spec's error shape
 * (`{statusCode, error, message}`) with the status and code given, and that nothing was stored:
 * `snapshot` reads every row the request could have touched, before and after.
 */
export async function expectRefused<Response extends Answer>(
  send: () => Promise<Response>,
  refusal: Refusal,
  snapshot: () => Promise<unknown>,
): Promise<Response> {
  const before = await snapshot();
  const response = await send();
  expect(response.status, JSON.stringify(response.body)).toBe(refusal.status);
  expect(response.body).toMatchObject({ statusCode: refusal.status, error: refusal.error });
  if (refusal.message !== undefined) expect(response.body.message).toMatch(refusal.message);
  expect(await snapshot()).toEqual(before);
  return response;
}

/**
 * A file's `refused(send, status, error, message?)`: expectRefused over the snapshot the file's
 * requests may touch.
 */
export function refuser(snapshot: () => Promise<unknown>) {
  return <Response extends Answer>(send: () => Promise<Response>, status: number, error: string, message?: string | RegExp) =>
    expectRefused(send, { status, error, message }, snapshot);
}

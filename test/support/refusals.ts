import { expect } from 'vitest';

/** What a refusal answers: the status, the spec's error code, and (optionally) what its message says. */
export interface Refusal {
  status: number;
  /** Without it only the status is checked, in the answer and as the body's `statusCode`. */
  error?: string;
  message?: string | RegExp;
}

interface Answer {
  status: number;
  body: any;
}

/** What a file checks of each of its refusals besides (no internals leaked, the exact body). */
export type RefusalCheck<Response extends Answer> = (response: Response, refusal: Refusal) => void;

/**
 * Sends a request that must be refused, checks its answer is the spec's error shape
 * (`{statusCode, error, message}`) with the status and code given, and that nothing was stored:
 * `snapshot` reads every row the request could have touched, before and after.
 */
export async function expectRefused<Response extends Answer>(
  send: () => Promise<Response>,
  refusal: Refusal,
  snapshot: () => Promise<unknown>,
  check?: RefusalCheck<Response>,
): Promise<Response> {
  const before = await snapshot();
  const response = await send();
  expect(response.status, JSON.stringify(response.body)).toBe(refusal.status);
  const { status: statusCode, error } = refusal;
  expect(response.body).toMatchObject(error === undefined ? { statusCode } : { statusCode, error });
  if (refusal.message !== undefined) expect(response.body.message).toMatch(refusal.message);
  check?.(response, refusal);
  expect(await snapshot()).toEqual(before);
  return response;
}

/**
 * A file's `refused(send, status, error?, message?)`: expectRefused over the snapshot the file's
 * requests may touch, with the file's own `check` of each answer if it has one.
 */
export function refuser<Checked extends Answer = Answer>(snapshot: () => Promise<unknown>, check?: RefusalCheck<Checked>) {
  return <Response extends Checked>(send: () => Promise<Response>, status: number, error?: string, message?: string | RegExp) =>
    expectRefused<Response>(send, { status, error, message }, snapshot, check);
}

import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';

export interface WebhookPost {
  url: URL;
  /** The IP address the address check approved: the connection goes there, never to a new resolution. */
  address: string;
  family: 4 | 6;
  headers: Record<string, string>;
  body: string;
  /** The whole attempt, connecting included. */
  timeoutMs: number;
  /** Read at most this much of the answer; the rest is dropped with the connection. */
  maxResponseBytes: number;
}

export type WebhookPostResult = { status: number; body: string } | { error: string };

/**
 * One POST of a delivery. TLS still checks the certificate against the URL's host name (the
 * lookup only pins the address), redirects are not followed (a 3xx is a failure), and the
 * answer's body is read up to a few KB for the log's error text.
 */
export function postWebhook(post: WebhookPost): Promise<WebhookPostResult> {
  const pinned: LookupFunction = (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as any)(null, [{ address: post.address, family: post.family }]);
    else callback(null, post.address, post.family);
  };
  const client = post.url.protocol === 'https:' ? https : http;
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: WebhookPostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = client.request(
      post.url,
      {
        method: 'POST',
        lookup: pinned,
        agent: false,
        headers: { ...post.headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(post.body)) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () => finish({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
        response.on('data', (chunk: Buffer) => {
          if (size < post.maxResponseBytes) chunks.push(chunk.subarray(0, post.maxResponseBytes - size));
          size += chunk.length;
          if (size >= post.maxResponseBytes) {
            done();
            response.destroy();
          }
        });
        response.on('end', done);
        response.on('error', done);
        response.on('close', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${post.timeoutMs} ms` });
      request.destroy();
    }, post.timeoutMs);
    request.on('error', (error) => finish({ error: error.message }));
    request.end(post.body);
  });
}

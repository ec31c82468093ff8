import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyWebhook } from '@reality-data-platform/sdk';
import { Webhook } from 'standardwebhooks';
import type { Clock } from '../../src/ports/clock.js';

/** One POST the receiver got, as verified by the standardwebhooks package. */
export interface ReceivedDelivery {
  id: string;
  timestamp: number;
  signature: string;
  body: { type: string; timestamp: string; data: Record<string, any> };
  /** Which of the receiver's secrets verified it (index), or -1 when none did. */
  verifiedBy: number;
  /** The same, by the SDK's own verifyWebhook: it must agree with the package on every delivery. */
  sdkVerifiedBy: number;
  answered: number;
  /** The receiver's clock (the platform's, in tests) when the request had arrived whole, in ms. */
  receivedAt: number;
}

/**
 * A webhook receiver on 127.0.0.1 (node:http), as an integrator writes one: every delivery is
 * verified with the npm standardwebhooks package, and with the SDK's verifyWebhook, against the
 * secrets it knows. Its clock is the
 * test platform's, so that moving the platform's time does not make timestamps look stale.
 * `respond` picks each answer's status (default 200); `hold` keeps requests unanswered.
 */
export class WebhookReceiver {
  readonly received: ReceivedDelivery[] = [];
  secrets: string[] = [];
  respond: (delivery: ReceivedDelivery) => number = () => 200;
  hold = false;
  private held: http.ServerResponse[] = [];
  private readonly waiters = new Set<() => void>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly clock: Clock,
  ) {}

  static async start(clock: Clock, path = '/hook'): Promise<WebhookReceiver> {
    const server = http.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const receiver = new WebhookReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`, clock);
    server.on('request', (request, response) => receiver.handle(request, response));
    return receiver;
  }

  private verify(secret: string, payload: string, headers: Record<string, string>): boolean {
    const webhook = new Webhook(secret);
    // The package's 5-minute tolerance, measured on the test's clock.
    (webhook as any).verifyTimestamp = (header: string) => {
      const timestamp = Number.parseInt(header, 10);
      if (Math.abs(Math.floor(this.clock.now().getTime() / 1000) - timestamp) > 300)
        throw new Error('timestamp out of tolerance');
      return new Date(timestamp * 1000);
    };
    try {
      webhook.verify(payload, headers);
      return true;
    } catch {
      return false;
    }
  }

  private verifyWithSdk(secret: string, payload: string, headers: Record<string, string>): boolean {
    try {
      verifyWebhook(secret, headers, payload, { now: () => this.clock.now().getTime() });
      return true;
    } catch {
      return false;
    }
  }

  private handle(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const payload = Buffer.concat(chunks).toString('utf8');
      const headers = {
        'webhook-id': String(request.headers['webhook-id']),
        'webhook-timestamp': String(request.headers['webhook-timestamp']),
        'webhook-signature': String(request.headers['webhook-signature']),
      };
      const delivery: ReceivedDelivery = {
        id: headers['webhook-id'],
        timestamp: Number(headers['webhook-timestamp']),
        signature: headers['webhook-signature'],
        body: JSON.parse(payload),
        verifiedBy: this.secrets.findIndex((secret) => this.verify(secret, payload, headers)),
        sdkVerifiedBy: this.secrets.findIndex((secret) => this.verifyWithSdk(secret, payload, headers)),
        answered: 0,
        receivedAt: this.clock.now().getTime(),
      };
      if (this.hold) {
        this.received.push(delivery);
        this.held.push(response);
        this.wake();
        return;
      }
      delivery.answered = this.respond(delivery);
      this.received.push(delivery);
      response.writeHead(delivery.answered, { 'content-type': 'text/plain' }).end(delivery.answered < 300 ? 'ok' : 'nope');
      this.wake();
    });
  }

  private wake(): void {
    for (const waiter of this.waiters) waiter();
  }

  /** The deliveries of one event type, in arrival order. */
  ofType(type: string): ReceivedDelivery[] {
    return this.received.filter((delivery) => delivery.body.type === type);
  }

  /** Waits until `count` deliveries match (default: within 15 s). */
  async waitFor(match: (delivery: ReceivedDelivery) => boolean, count = 1, timeoutMs = 15_000): Promise<ReceivedDelivery[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.filter(match);
      if (found.length >= count) return found;
      if (Date.now() > deadline) {
        throw new Error(
          `expected ${count} deliveries, got ${found.length}: ${JSON.stringify(this.received.map((d) => d.body.type))}`,
        );
      }
      await new Promise<void>((resolve) => {
        const done = () => {
          this.waiters.delete(done);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(done, 100);
        this.waiters.add(done);
      });
    }
  }

  /** Answers the held requests with `status` and stops holding. */
  release(status = 200): void {
    this.hold = false;
    for (const response of this.held.splice(0)) response.writeHead(status).end();
  }

  async close(): Promise<void> {
    for (const response of this.held.splice(0)) response.destroy();
    this.server.closeAllConnections();
    await new Promise((resolve) => this.server.close(resolve));
  }
}

/** Polls `read` until `done` holds of its answer (the outcome is recorded just after the receiver answers). */
export async function settled<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

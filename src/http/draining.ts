import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance } from 'fastify';
import type { Lifecycle } from '../lifecycle.js';

/**
 * While the process drains, every answer carries `Connection: close`: the client or proxy then
 * opens its next connection, to another copy once this one has stopped listening, instead of
 * sending on a keep-alive connection that is about to go. Nothing runs per request before the
 * drain: the server's connections are tracked as they open, and when the drain begins the
 * responses in flight on them are marked (as http-terminator does), and so is every request
 * that arrives afterwards. Fastify marks the requests that arrive after close() too.
 */
export function registerConnectionClose(app: FastifyInstance, lifecycle: Lifecycle): void {
  const sockets = new Set<Socket>();
  app.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const markClosing = (response: ServerResponse | undefined) => {
    if (response && !response.headersSent) response.setHeader('connection', 'close');
  };
  lifecycle.onDrain(() => {
    app.server.prependListener('request', (_request, response) => markClosing(response));
    // The response a connection is busy with: Node's own field, stable since its first releases.
    for (const socket of sockets) markClosing((socket as Socket & { _httpMessage?: ServerResponse })._httpMessage);
  });
}

/**
 * The HTTP side of a stop. For `delayMs` the process still accepts connections and serves, with
 * 503 on /readyz so that a load balancer that polls it takes the copy out, and `Connection: close`
 * on every answer, so keep-alive connections end with their next answer instead of being cut
 * while a client may be sending on them. Then it stops listening, closes the connections at rest
 * and lets the requests in flight finish until `deadline` (performance.now() time), after which
 * the remaining connections are cut.
 */
export async function drainHttp(app: FastifyInstance, options: { delayMs: number; deadline: number }): Promise<void> {
  const server = app.server;
  const lag = Math.min(options.delayMs, options.deadline - performance.now());
  if (lag > 0) await delay(lag);
  // close() stops listening, closes the idle connections (Node's server.close) and resolves once every connection
  // has ended; answers started from now on carry Connection: close (Fastify's own).
  const closed = app.close();
  const left = options.deadline - performance.now();
  const late = await Promise.race([closed.then(() => false), delay(Math.max(left, 0), true, { ref: false })]);
  if (late) {
    app.log.warn('grace period over: closing the connections still open');
    server.closeAllConnections();
    await closed;
  }
}

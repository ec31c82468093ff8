import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export const REQUEST_ID_HEADER = 'x-request-id';

/**
 * What a caller (or the load balancer in front) may name a request: it goes to every log line
 * and back in a header, so only a short id of safe characters is taken; anything else (a 10 KB
 * value, spaces, control characters, a second header of the name) is replaced by a fresh UUID.
 */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The server's genReqId: the incoming X-Request-Id when it is safe, else a new UUID. */
export function requestIdOf(request: IncomingMessage): string {
  const incoming = request.headers[REQUEST_ID_HEADER];
  return typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID();
}

/** Sets the answer's X-Request-Id; for replies Fastify sends before routing (frameworkErrors) too. */
export function answerRequestId(request: FastifyRequest, reply: FastifyReply): void {
  reply.header(REQUEST_ID_HEADER, request.id);
}

/**
 * Every answer carries the request's id, errors, 404 and 405 included: the first root hook, so
 * it is set before any other hook can refuse the request.
 */
export function registerRequestId(app: FastifyInstance): void {
  app.addHook('onRequest', (request, reply, done) => {
    answerRequestId(request, reply);
    done();
  });
}

import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { ApiError } from '../../domain/errors.js';
import { ScimError } from '../../domain/scim/scim-error.js';
import { OAuthError } from '../../oauth/oauth-error.js';
import { SCIM_PATH_PREFIX, sendScimError } from '../scim/scim-errors.js';
import { answerRequestId } from './request-id.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

function send(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.status === 401) reply.header('www-authenticate', `Bearer error="${error.error}"`);
  if (error.retryAfterSeconds !== undefined) reply.header('retry-after', error.retryAfterSeconds);
  return reply.code(error.status).type('application/json; charset=utf-8').send(error.toBody());
}

/** Maps what Fastify itself rejects (validation, parsing, size, media type) onto our codes. */
function fromFastify(error: FastifyError): ApiError {
  if (error.validation) {
    const first = error.validation[0];
    const where = error.validationContext ?? 'request';
    const field = first?.instancePath ? first.instancePath.slice(1).replace(/\//g, '.') : '';
    const detail =
      first?.keyword === 'additionalProperties'
        ? `unknown property "${(first.params as { additionalProperty: string }).additionalProperty}"`
        : (first?.message ?? 'is not valid');
    return new ApiError('ValidationError', `${where}${field ? `.${field}` : ''}: ${detail}`);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('PayloadTooLarge');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('UnsupportedMediaType');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('BadRequest', 'The request body is empty but declared as JSON');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError('BadRequest', 'The request body is not valid JSON');
  }
  if (error.statusCode === 400 || error instanceof SyntaxError)
    return new ApiError('BadRequest', 'The request body could not be parsed');
  if (error.statusCode === 413) return new ApiError('PayloadTooLarge');
  if (error.statusCode === 415) return new ApiError('UnsupportedMediaType');
  return new ApiError('Internal');
}

/**
 * The router's limit on one path parameter (find-my-way's maxParamLength, Fastify's default).
 * No identifier of ours comes near it: ids are UUIDs, and the routes' schemas refuse more than
 * 64 characters with 400 ValidationError.
 */
export const MAX_PATH_PARAMETER_LENGTH = 100;

/**
 * Fastify answers a few requests before routing, outside setErrorHandler and every hook: a path
 * with broken percent-encoding, or a path parameter longer than the router takes. The server's
 * frameworkErrors option sends those in our shape (the SCIM surface's shape under its prefix),
 * with the request id. A parameter that long is 400, not 404: the router stops before it knows
 * whether any route would match, and a shorter overlong id is already 400 ValidationError, so
 * a client learns its request is malformed rather than that a record is missing.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  answerRequestId(request, reply);
  let apiError: ApiError;
  if (error.code === 'FST_ERR_BAD_URL') apiError = new ApiError('BadRequest', 'The address is not correctly percent-encoded');
  else if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    apiError = new ApiError(
      'BadRequest',
      `A path segment is longer than ${MAX_PATH_PARAMETER_LENGTH} characters: no identifier is that long`,
    );
  } else apiError = fromFastify(error);
  if (apiError.status >= 500) request.log.error({ err: error }, 'request failed before routing');
  if (request.url.startsWith(SCIM_PATH_PREFIX)) {
    sendScimError(reply, new ScimError(apiError.status, apiError.message));
    return;
  }
  send(reply, apiError);
}

/**
 * A request Node's HTTP parser refuses (a control character in a header, a header section over
 * the size limit, a timeout) never reaches Fastify: answered here as Fastify's default does, in
 * our shape and with a fresh request id, then the connection closes.
 */
export function clientErrorHandler(this: FastifyInstance, error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, label, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'Request Timeout', 'The request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'Request Header Fields Too Large', 'The request headers are too large']
        : [400, 'BadRequest', 'The request is not valid HTTP'];
  const id = randomUUID();
  this.log.debug({ err: error, reqId: id }, 'malformed request refused');
  const body = JSON.stringify({ statusCode: status, error: label, message });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nX-Request-Id: ${id}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}

/**
 * One error shape everywhere (docs/design/errors.md#error-shape). Unknown paths are 404; known
 * paths with another method are 405 with Allow. Unexpected failures are logged with the request id
 * and answered with the generic 500 body: no stack or SQL leaves the process.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  // The routes' paths by method, put in a router of their own on the first unknown request:
  // building it as each route was added took about 0.4 s of every start
  // (docs/performance.md#start-up-the-causes-of-7-s).
  const routes: [method: string, path: string][] = [];
  let router: ReturnType<typeof FindMyWay> | undefined;
  const knownPaths = () => {
    if (router) return router;
    router = FindMyWay({ ignoreTrailingSlash: false });
    for (const [method, path] of routes) {
      if (!router.hasRoute(method as 'GET', path)) router.on(method as 'GET', path, () => {});
    }
    return router;
  };
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if ((METHODS as readonly string[]).includes(method)) routes.push([method, route.url]);
    }
    router = undefined;
  });

  // PostgreSQL text cannot hold NUL: a %00 in a path or query value would reach the store and
  // fail there as a 500. No identifier or filter legitimately contains it.
  // A callback hook: an async one costs every request a promise and a turn of the microtask queue.
  app.addHook('onRequest', (request, _reply, done) => {
    done(/%00/i.test(request.url) ? new ApiError('BadRequest', 'The address contains a NUL character') : undefined);
  });

  app.setErrorHandler((error: FastifyError | ApiError | OAuthError, request, reply) => {
    if (error instanceof OAuthError) {
      if (error.status === 401) reply.header('www-authenticate', 'Basic realm="oauth", charset="UTF-8"');
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', error.retryAfterSeconds);
      return reply.code(error.status).header('cache-control', 'no-store').send(error.toBody());
    }
    const apiError = error instanceof ApiError ? error : fromFastify(error);
    // A temporary refusal (a lost database connection) is the operator's warning, not a failure of ours.
    if (apiError.status >= 500 && apiError.retryAfterSeconds === undefined) request.log.error({ err: error }, 'request failed');
    // A refusal caused by a peer (the mail server's reply) keeps the reason for the operator's log.
    else if (apiError.cause) request.log.warn({ err: apiError.cause }, 'request refused');
    return send(reply, apiError);
  });

  app.setNotFoundHandler((request, reply) => {
    // A CORS preflight that the CORS plugin did not answer (an origin not allowed, a path without
    // CORS, or CORS off): 204 without any Access-Control header, so the browser refuses the call
    // itself. A 405 would read as a broken server in the browser's console.
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      return reply.code(204).header('content-length', '0').send();
    }
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => knownPaths().find(method, path) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return send(reply, new ApiError('MethodNotAllowed', `${request.method} is not allowed on this path`));
    }
    return send(reply, new ApiError('NotFound', `No route for ${request.method} ${path}`));
  });
}

import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import FindMyWay from 'find-my-way';
import { ApiError } from '../../domain/errors.js';
import { OAuthError } from '../../oauth/oauth-error.js';

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

function send(reply: FastifyReply, error: ApiError): FastifyReply {
  if (error.status === 401) reply.header('www-authenticate', `Bearer error="${error.error}"`);
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
 * Fastify answers a few requests before routing, outside setErrorHandler (a path with broken
 * percent-encoding): the server's frameworkErrors option sends those in our shape too.
 */
export function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const apiError =
    error.code === 'FST_ERR_BAD_URL'
      ? new ApiError('BadRequest', 'The address is not correctly percent-encoded')
      : fromFastify(error);
  send(reply, apiError);
}

/**
 * One error shape everywhere (DESIGN.md section 4). Unknown paths are 404; known paths with
 * another method are 405 with Allow. Unexpected failures are logged with the request id and
 * answered with the generic 500 body: no stack or SQL leaves the process.
 */
export function registerErrorHandling(app: FastifyInstance): void {
  const knownPaths = FindMyWay({ ignoreTrailingSlash: false });
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) {
      if (!(METHODS as readonly string[]).includes(method)) continue;
      const path = route.url;
      if (!knownPaths.hasRoute(method as 'GET', path)) knownPaths.on(method as 'GET', path, () => {});
    }
  });

  // PostgreSQL text cannot hold NUL: a %00 in a path or query value would reach the store and
  // fail there as a 500. No identifier or filter legitimately contains it.
  app.addHook('onRequest', async (request) => {
    if (/%00/i.test(request.url)) throw new ApiError('BadRequest', 'The address contains a NUL character');
  });

  app.setErrorHandler((error: FastifyError | ApiError | OAuthError, request, reply) => {
    if (error instanceof OAuthError) {
      if (error.status === 401) reply.header('www-authenticate', 'Basic realm="oauth", charset="UTF-8"');
      if (error.retryAfterSeconds !== undefined) reply.header('retry-after', error.retryAfterSeconds);
      return reply.code(error.status).header('cache-control', 'no-store').send(error.toBody());
    }
    const apiError = error instanceof ApiError ? error : fromFastify(error);
    if (apiError.status >= 500) request.log.error({ err: error }, 'request failed');
    // A refusal caused by a peer (the mail server's reply) keeps the reason for the operator's log.
    else if (apiError.cause) request.log.warn({ err: apiError.cause }, 'request refused');
    return send(reply, apiError);
  });

  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = METHODS.filter((method) => knownPaths.find(method, path) !== null);
    if (allowed.length > 0) {
      reply.header('allow', allowed.join(', '));
      return send(reply, new ApiError('MethodNotAllowed', `${request.method} is not allowed on this path`));
    }
    return send(reply, new ApiError('NotFound', `No route for ${request.method} ${path}`));
  });
}

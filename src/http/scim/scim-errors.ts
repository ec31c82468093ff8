import type { FastifyError, FastifyReply } from 'fastify';
import { ApiError } from '../../domain/errors.js';
import { ScimError } from '../../domain/scim/scim-error.js';

export const SCIM_MEDIA_TYPE = 'application/scim+json; charset=utf-8';

/** Where the SCIM surface is mounted (http/app.ts): framework errors there answer in its shape too. */
export const SCIM_PATH_PREFIX = '/scim/';

/** Anything thrown on the SCIM surface as the SCIM error an identity provider reads. */
export function toScimError(error: FastifyError | ApiError | ScimError): ScimError {
  if (error instanceof ScimError) return error;
  if (error instanceof ApiError) {
    if (error.error === 'BadRequest') return new ScimError(400, error.message, 'invalidSyntax');
    if (error.error === 'ValidationError') return new ScimError(400, error.message, 'invalidValue');
    return new ScimError(error.status, error.message);
  }
  if (error.validation) return new ScimError(400, error.message, 'invalidValue');
  if (error instanceof SyntaxError || error.code === 'FST_ERR_CTP_INVALID_JSON_BODY') {
    return new ScimError(400, 'The request body is not valid JSON', 'invalidSyntax');
  }
  if (error.statusCode === 413) return new ScimError(413, 'Request body is too large');
  if (error.statusCode === 415) return new ScimError(415, 'Send application/scim+json or application/json');
  if (error.statusCode === 400) return new ScimError(400, 'The request could not be parsed', 'invalidSyntax');
  return new ScimError(500, 'An unexpected error occurred');
}

export function sendScimError(reply: FastifyReply, error: ScimError): FastifyReply {
  if (error.status === 401) reply.header('www-authenticate', 'Bearer realm="scim"');
  return reply.code(error.status).type(SCIM_MEDIA_TYPE).send(error.toBody());
}

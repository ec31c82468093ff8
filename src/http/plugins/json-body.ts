import type { FastifyInstance } from 'fastify';
import secureJson from 'secure-json-parse';
import { ApiError } from '../../domain/errors.js';

const NUL = '\u0000';

/**
 * JSON bodies, parsed as Fastify does (prototype poisoning refused) and with one rule for
 * every route: no NUL character in any key or string. PostgreSQL text cannot hold it, so it
 * is refused on every store alike, before any handler sees it.
 */
export function registerJsonBodyParser(app: FastifyInstance, contentType = 'application/json'): void {
  // Another JSON media type (application/merge-patch+json) is registered by the routes that take it.
  if (app.hasContentTypeParser(contentType)) app.removeContentTypeParser(contentType);
  app.addContentTypeParser(contentType, { parseAs: 'string' }, (_request, text, done) => {
    if ((text as string).length === 0) {
      done(new ApiError('BadRequest', 'The request body is empty but declared as JSON'), undefined);
      return;
    }
    let field: string | undefined;
    try {
      const body = secureJson.parse(
        text as string,
        (key, value) => {
          if (key.includes(NUL) || (typeof value === 'string' && value.includes(NUL))) {
            field = key;
            throw new Error('NUL');
          }
          return value;
        },
        { protoAction: 'error', constructorAction: 'error' },
      );
      done(null, body);
    } catch {
      done(
        field !== undefined
          ? new ApiError('ValidationError', `body${field ? `.${field}` : ''}: must not contain a NUL character`)
          : new ApiError('BadRequest', 'The request body is not valid JSON'),
        undefined,
      );
    }
  });
}

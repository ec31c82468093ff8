import type { FastifyReply } from 'fastify';

/**
 * A 201 and the `Location` of what it made (RFC 9110 section 15.3.2): the absolute address under
 * the region's public base address, so a client behind a proxy can follow it as is.
 * `path` starts at `/v1/`.
 */
export function created<Body>(reply: FastifyReply, baseUrl: string, path: string, body: Body) {
  return reply.code(201).header('location', `${baseUrl}${path}`).send(body);
}

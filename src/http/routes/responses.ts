import { Type } from '@sinclair/typebox';
import type { FastifyReply } from 'fastify';

/** The error body of docs/design/errors.md#error-shape, for the OpenAPI responses. */
export const ErrorSchema = Type.Object(
  {
    statusCode: Type.Integer(),
    error: Type.String({ description: 'The code to branch on' }),
    message: Type.Optional(Type.String()),
    errorCode: Type.Optional(
      Type.String({ description: 'SSORestrictedResource on a 403 of a node that requires an identity provider' }),
    ),
    apiUrl: Type.Optional(
      Type.String({ description: "OrganizationInAnotherRegion (421): the base address of the token's organization's region" }),
    ),
  },
  { $id: 'Error', title: 'Error', additionalProperties: true },
);

/**
 * The error answers an operation declares, by status: each is the shared `Error` schema
 * (`{statusCode, error, message}`), so the document lists them and the serializer checks them.
 */
export function errors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((status) => [status, Type.Ref('Error')]));
}

/**
 * A 201 and the `Location` of what it made (RFC 9110 section 15.3.2): the absolute address under
 * the region's public base address, so a client behind a proxy can follow it as is.
 * `path` starts at `/v1/`.
 */
export function created<Body>(reply: FastifyReply, baseUrl: string, path: string, body: Body) {
  return reply.code(201).header('location', `${baseUrl}${path}`).send(body);
}

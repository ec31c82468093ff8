import { Type } from '@sinclair/typebox';
import {
  DEFAULT_EXPIRES_IN_SECONDS,
  MAX_ALLOWED_ORIGINS,
  MAX_EXPIRES_IN_SECONDS,
  MIN_EXPIRES_IN_SECONDS,
} from '../../../domain/embed/embed-sessions.js';
import type { EmbedSessionView } from '../../../services/embed/embed-session-service.js';
import { Paging } from '../paging.js';

const TargetId = (description: string) => Type.Optional(Type.String({ minLength: 1, maxLength: 64, description }));

export const CreateEmbedSessionBody = Type.Object(
  {
    twinId: TargetId("A twin's id, or its site's id"),
    twinDraftId: TargetId("A twin draft's id"),
    projectId: TargetId('A planning project id (not yet: 400)'),
    layoutId: TargetId('A planning layout id (not yet: 400)'),
    allowedOrigins: Type.Array(Type.String({ minLength: 1, maxLength: 255 }), {
      minItems: 1,
      maxItems: MAX_ALLOWED_ORIGINS,
      description:
        'The origins that may frame the viewer and talk to it: https://host[:port], or http://localhost[:port] and http://127.0.0.1[:port]; origins only (no path, query or fragment), none repeated',
    }),
    expiresInSeconds: Type.Optional(
      Type.Integer({
        minimum: MIN_EXPIRES_IN_SECONDS,
        maximum: MAX_EXPIRES_IN_SECONDS,
        description: `Seconds until the session ends; default ${DEFAULT_EXPIRES_IN_SECONDS}`,
      }),
    ),
  },
  {
    additionalProperties: false,
    description: 'Exactly one of twinId, twinDraftId, projectId and layoutId names the target.',
  },
);

export const EmbedSessionIdParams = Type.Object({ embedSessionId: Type.String({ minLength: 1, maxLength: 64 }) });

export const EmbedSessionSchema = Type.Object(
  {
    id: Type.String(),
    target: Type.Object({
      type: Type.Union([Type.Literal('twin'), Type.Literal('twinDraft'), Type.Literal('project'), Type.Literal('layout')]),
      id: Type.String(),
    }),
    allowedOrigins: Type.Array(Type.String()),
    token: Type.Optional(
      Type.String({ description: 'The read-only bearer token (rdpe_...): in the creation answer only, never again' }),
    ),
    expiresAt: Type.String({ format: 'date-time' }),
    iframeUrl: Type.Optional(
      Type.String({ format: 'uri', description: 'The viewer page with the token in its fragment: creation answer only' }),
    ),
    embedHtml: Type.Optional(Type.String({ description: 'An iframe element for iframeUrl: creation answer only' })),
    createdBy: Type.String(),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'EmbedSession', additionalProperties: false },
);

export const EmbedSessionListQuery = Type.Object(
  {
    twinId: Type.String({ minLength: 1, maxLength: 64, description: "A twin's id, or its site's id" }),
    ...Paging,
  },
  { additionalProperties: false },
);

export const EmbedSessionListSchema = Type.Object({
  items: Type.Array(Type.Ref('EmbedSession')),
  page: Type.Integer(),
  limit: Type.Integer(),
  total: Type.Integer(),
});

/** The longest a viewer's request waits for its session's end: under the usual 60 s of a proxy's read timeout. */
export const MAX_WAIT_SECONDS = 50;

export const SessionWaitQuery = Type.Object(
  {
    waitSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_WAIT_SECONDS,
        default: 0,
        description: 'How long to hold the request while the session stays open',
      }),
    ),
  },
  { additionalProperties: false },
);

export const OpenSessionSchema = Type.Object(
  {
    embedSessionId: Type.String(),
    expiresAt: Type.String({ format: 'date-time' }),
  },
  { additionalProperties: false, description: "The embed token's session, still open" },
);

export const ViewerAddressSchema = Type.Object(
  {
    url: Type.String({ format: 'uri', description: "The viewer page, a short-lived token of the caller's in its fragment" }),
    embedHtml: Type.String({ description: 'An iframe element for url' }),
  },
  { additionalProperties: false },
);

export function toEmbedSessionBody(view: EmbedSessionView) {
  const { row } = view;
  return {
    id: row.id,
    target: { type: row.target_type, id: row.target_id },
    allowedOrigins: view.allowedOrigins,
    ...(view.token === undefined ? {} : { token: view.token }),
    expiresAt: row.expires_at,
    ...(view.iframeUrl === undefined ? {} : { iframeUrl: view.iframeUrl, embedHtml: view.embedHtml }),
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

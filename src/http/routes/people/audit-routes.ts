import { type Static, Type } from '@sinclair/typebox';
import type { AuditEventRow } from '../../../domain/records/regional.js';
import { type CursorList, CursorPaging, pagePosition, setNextCursor } from '../paging.js';
import type { RegionApp } from '../region-app-type.js';
import { errors } from '../responses.js';

const AuditEventSchema = Type.Object(
  {
    id: Type.String(),
    occurredAt: Type.String({ format: 'date-time' }),
    actor: Type.Object({
      type: Type.Union(
        ['principal', 'scim', 'invitee', 'admin-cli'].map((value) => Type.Literal(value)),
        {
          description:
            "principal: a token's user or service user; scim: an identity provider's SCIM token; invitee: an invitation's acceptance",
        },
      ),
      id: Type.String(),
    }),
    action: Type.String({ description: 'What happened, e.g. group.created, membership.removed, user.deactivated' }),
    target: Type.Object({ type: Type.String(), id: Type.String() }),
    details: Type.Record(Type.String(), Type.Unknown()),
  },
  { $id: 'AuditEvent' },
);
type AuditEventBody = Static<typeof AuditEventSchema>;

const AuditQuery = Type.Object(
  {
    action: Type.Optional(Type.String({ maxLength: 100 })),
    targetType: Type.Optional(Type.String({ maxLength: 50 })),
    targetId: Type.Optional(Type.String({ maxLength: 255 })),
    actorId: Type.Optional(Type.String({ maxLength: 255 })),
    since: Type.Optional(Type.String({ format: 'date-time', description: 'Events at or after this instant' })),
    until: Type.Optional(Type.String({ format: 'date-time', description: 'Events before this instant' })),
    ...CursorPaging,
  },
  { additionalProperties: false },
);

/** The trail's order (newest first, then id): what a cursor holds. */
const AUDIT: CursorList<AuditEventRow> = { name: 'audit', keyLength: 2, keyOf: (row) => [row.occurred_at, row.id] };

function toAuditEventBody(row: AuditEventRow): AuditEventBody {
  return {
    id: row.id,
    occurredAt: row.occurred_at,
    actor: { type: row.actor_type, id: row.actor_id },
    action: row.action,
    target: { type: row.target_type, id: row.target_id },
    details: JSON.parse(row.details) as Record<string, unknown>,
  };
}

/** Stored instants are ISO strings in UTC; a filter with another offset is compared as the same instant. */
const instant = (value: string | undefined) => (value === undefined ? undefined : new Date(value).toISOString());

export default async function auditRoutes(app: RegionApp) {
  app.addSchema(AuditEventSchema);
  app.get(
    '/v1/audit-events',
    {
      config: { scope: 'read:user' },
      schema: {
        tags: ['Audit'],
        operationId: 'listAuditEvents',
        summary: 'List changes to users, groups, memberships, roles, invitations and metadata types, newest first',
        description: 'Needs manage on the organization node (Organization Administrator).',
        querystring: AuditQuery,
        response: { 200: Type.Array(Type.Ref('AuditEvent')), ...errors(400, 401, 403) },
      },
    },
    async (request, reply) => {
      const { limit, offset, cursor, since, until, ...filter } = request.query;
      const filters = { ...filter, since: instant(since), until: instant(until) };
      const { principal } = request;
      const scope = [principal.orgId, principal.userId, JSON.stringify(filters)];
      const page = pagePosition(AUDIT, scope, { limit, offset, cursor });
      const rows = await app.services.audit.list(principal, filters, page);
      setNextCursor(reply, AUDIT, scope, page, rows);
      return rows.map(toAuditEventBody);
    },
  );
}

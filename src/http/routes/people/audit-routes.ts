import { type Static, Type } from '@sinclair/typebox';
import type { AuditEventRow } from '../../../adapters/db/schema.js';
import type { RegionApp } from '../../region-app.js';
import { clampLimit, errors, Paging } from '../nodes/node-schemas.js';

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
    ...Paging,
  },
  { additionalProperties: false },
);

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
        summary: 'List changes to users, groups, memberships, roles and invitations, newest first',
        description: 'Needs manage on the organization node (Organization Administrator).',
        querystring: AuditQuery,
        response: { 200: Type.Array(Type.Ref('AuditEvent')), ...errors(400, 401, 403) },
      },
    },
    async (request) => {
      const { limit, offset, since, until, ...filter } = request.query;
      const rows = await app.services.audit.list(
        request.principal,
        { ...filter, since: instant(since), until: instant(until) },
        clampLimit(limit),
        offset ?? 0,
      );
      return rows.map(toAuditEventBody);
    },
  );
}

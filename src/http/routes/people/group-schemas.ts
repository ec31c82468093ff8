import { type Static, Type } from '@sinclair/typebox';
import type { GroupWithCount } from '../../../domain/records/regional.js';
import { CursorPaging } from '../paging.js';

// NUL characters are refused for every JSON body by http/plugins/json-body.ts.
export const GroupName = Type.String({
  minLength: 1,
  maxLength: 255,
  description:
    '1 to 255 characters (code points), stored as given (never trimmed); unique in the organization without regard to case',
});
const Id = Type.String({ minLength: 1, maxLength: 64 });

export const GroupSchema = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    divisionId: Type.Union([Type.String(), Type.Null()], { description: 'The owning division; null for an organization group' }),
    isOrganizationGroup: Type.Boolean({ description: 'No owning division: the group belongs to every division' }),
    scimManaged: Type.Boolean({ description: "Provisioned by the organization's identity provider over SCIM" }),
    samlLinked: Type.Boolean({ description: 'Membership filled by a SAML/SSO link: manual member changes are refused' }),
    memberCount: Type.Integer(),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Group', title: 'Group' },
);
export type GroupBody = Static<typeof GroupSchema>;

export const CreateGroupBody = Type.Object(
  {
    name: GroupName,
    divisionId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: 'The owning division; absent for an organization group' }),
    ),
  },
  { additionalProperties: false },
);

export const UpdateGroupBody = Type.Object(
  {
    name: Type.Optional(GroupName),
    divisionId: Type.Optional(
      Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Null()], {
        description: 'A new owning division; null makes it an organization group',
      }),
    ),
    samlLinked: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const ListGroupsQuery = Type.Object(
  {
    divisionId: Type.Optional(
      Type.String({ minLength: 1, maxLength: 64, description: "The division's own groups and the organization groups" }),
    ),
    name: Type.Optional(
      Type.String({ minLength: 1, maxLength: 255, description: 'The group with exactly this name (without regard to case)' }),
    ),
    ...CursorPaging,
  },
  { additionalProperties: false },
);

export const GroupIdParams = Type.Object({ groupId: Id });
export const GroupUserParams = Type.Object({ groupId: Id, userId: Id });

export function toGroupBody(row: GroupWithCount): GroupBody {
  return {
    id: row.id,
    name: row.name,
    divisionId: row.division_id,
    isOrganizationGroup: row.division_id === null,
    scimManaged: row.scim_managed === 1,
    samlLinked: row.saml_linked === 1,
    memberCount: row.member_count,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

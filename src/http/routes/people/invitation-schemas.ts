import { type Static, Type } from '@sinclair/typebox';
import type { InvitationRow } from '../../../domain/records/regional.js';
import { CursorPaging } from '../paging.js';

export const InviteBody = Type.Object(
  {
    email: Type.String({ minLength: 3, maxLength: 254, format: 'email', description: 'Compared and stored in lower case' }),
    roleId: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'A custom role id (a UUID) or an administrative role id (organization-administrator, organization-reader)',
    }),
  },
  { additionalProperties: false },
);

const InvitationState = Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('revoked')]);

export const InvitationSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    nodeId: Type.String({ description: 'The node the role is given on: the organization id for an organization invitation' }),
    roleId: Type.String(),
    state: InvitationState,
    invitedBy: Type.String({ description: 'The user or service user that invited' }),
    acceptedBy: Type.Union([Type.String(), Type.Null()], { description: 'The user that accepted' }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
    acceptedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
  },
  { title: 'Invitation' },
);
export type InvitationBody = Static<typeof InvitationSchema>;

export const InvitationListQuery = Type.Object(
  {
    nodeId: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Only this node's invitations" })),
    state: Type.Optional(InvitationState),
    ...CursorPaging,
  },
  { additionalProperties: false },
);

export const InvitationIdParams = Type.Object({ invitationId: Type.String({ minLength: 1, maxLength: 64 }) });

export const INVITE_CODES =
  '409 UserAlreadyInvited or UserAlreadyMember; 403 InvalidEmailDomain, or Forbidden resource when the invitee would need a seat and none is free; 400 CustomRoleNotAssignableToDataNode, CustomRoleNotFound, AdminsitrativeRoleNotFound, AdministrativeRoleInvalidNode; 422 InvitationEmailRejected (the mail server refused the address for good); 503 InvitationEmailNotSent (nothing stored: retry the same request).';

export function toInvitationBody(row: InvitationRow): InvitationBody {
  return {
    id: row.id,
    email: row.email,
    nodeId: row.node_id,
    roleId: row.role_id,
    state: row.state as InvitationBody['state'],
    invitedBy: row.invited_by,
    acceptedBy: row.accepted_by,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    acceptedAt: row.accepted_at,
  };
}

import { type Static, Type } from '@sinclair/typebox';
import type { OrganizationMember } from '../../../domain/records/global.js';

/** A user as the organization sees it: the users API and a group's member list answer it. */
export const UserSchema = Type.Object(
  {
    id: Type.String(),
    email: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    kind: Type.Union([Type.Literal('user'), Type.Literal('service')], {
      description: 'service: the service user of an application',
    }),
    active: Type.Boolean({ description: 'Active in this organization: its tokens for it are honoured' }),
    isAdmin: Type.Boolean({ description: 'Holds the Organization Administrator role on the organization node' }),
    scimManaged: Type.Boolean({ description: "Provisioned by the organization's identity provider over SCIM" }),
    createdAt: Type.String({ format: 'date-time' }),
    updatedAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'User', title: 'User' },
);
export type UserBody = Static<typeof UserSchema>;

/** The later of the user's own change and its place's in the organization. */
export function toUserBody(member: OrganizationMember): UserBody {
  const updatedAt =
    member.updated_at > (member.member_updated_at ?? '') ? member.updated_at : (member.member_updated_at as string);
  return {
    id: member.id,
    email: member.email,
    firstName: member.first_name,
    lastName: member.last_name,
    kind: member.kind,
    active: member.member_deactivated_at === null && member.deactivated_at === null,
    isAdmin: member.is_admin === 1,
    scimManaged: member.scim_managed === 1,
    createdAt: member.created_at,
    updatedAt,
  };
}

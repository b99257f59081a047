import { defineEntity, p } from '@mikro-orm/core';
import { Person } from './person.ts';
import { Workspace } from './workspace.ts';

export const MEMBERSHIP_ROLES = ['owner', 'member'] as const;
export type MembershipRole = (typeof MEMBERSHIP_ROLES)[number];

export const Membership = defineEntity({
  name: 'Membership',
  tableName: 'membership',
  checks: [{ name: 'membership_role_check', expression: "role in ('owner', 'member')" }],
  properties: {
    personId: () => p.manyToOne(Person).mapToPk().fieldName('person_id').primary().deleteRule('cascade'),
    workspaceId: () => p.manyToOne(Workspace).mapToPk().fieldName('workspace_id').index('membership_workspace_id_index').primary().deleteRule('cascade'),
    role: p.text().$type<MembershipRole>(),
    createdAt: p.datetime().columnType('timestamptz'),
  },
});

import { defineEntity, p } from '@mikro-orm/core';

/** Someone who signs in to the dashboard; belongs to workspaces through memberships. */
export const Person = defineEntity({
  name: 'Person',
  tableName: 'person',
  properties: {
    id: p.uuid().primary(),
    email: p.text().unique('person_email_unique'),
    name: p.text(),
    /** scrypt hash (`adapters/people/password-hash.ts`); null for a person who cannot sign in with a password. */
    passwordHash: p.text().nullable(),
    createdAt: p.datetime().columnType('timestamptz'),
  },
});

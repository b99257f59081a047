import { defineEntity, p } from '@mikro-orm/core';
import { Person } from './person.ts';

/**
 * The account: holds credits, keys, monitors and webhooks. `receivesFreeGrant` is decided once, at creation:
 * only a person's oldest workspace gets the monthly free grant (a partial unique index enforces one per owner),
 * so opening more workspaces does not multiply free credits.
 */
export const Workspace = defineEntity({
  name: 'Workspace',
  tableName: 'workspace',
  // Mirrors the migration's partial unique index so the schema diff stays empty.
  uniques: [{ name: 'workspace_free_grant_owner_unique', properties: ['ownerPersonId'], where: { receivesFreeGrant: true } }],
  properties: {
    id: p.uuid().primary(),
    name: p.text(),
    ownerPersonId: () => p.manyToOne(Person).mapToPk().fieldName('owner_person_id').nullable(),
    receivesFreeGrant: p.boolean(),
    createdAt: p.datetime().columnType('timestamptz'),
  },
});

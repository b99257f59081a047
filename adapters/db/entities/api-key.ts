import { defineEntity, p } from '@mikro-orm/core';
import { Person } from './person.ts';
import { Workspace } from './workspace.ts';
import type { KeyLabel } from '../../identity/key-material.ts';

/**
 * An API key, or an MCP connection (an approved OAuth grant, `kind` `mcp_connection`). `id` is the public key id;
 * a key's secret is never stored, only its SHA-256 (`hash`); a connection has no secret of its own.
 */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  checks: [
    { name: 'api_key_label_check', expression: "label in ('live', 'test')" },
    { name: 'api_key_kind_check', expression: "kind in ('api_key', 'mcp_connection')" },
    // A key has a secret and no grant; a connection has a grant and no secret.
    {
      name: 'api_key_connection_check',
      expression: "((kind = 'api_key') = (hash is not null)) and ((kind = 'mcp_connection') = (oauth_grant_id is not null))",
    },
  ],
  // Key changes notify `api_key_changed` so instances forget cached keys (Migration20261124500000_api_key_changes).
  triggers: [
    {
      name: 'api_key_changed_on_update',
      timing: 'after',
      events: ['update'],
      expression: 'create trigger "api_key_changed_on_update" after update on "api_key" for each row when (…) execute function "api_key_changed"()',
    },
    {
      name: 'api_key_changed_on_delete',
      timing: 'after',
      events: ['delete'],
      expression: 'create trigger "api_key_changed_on_delete" after delete on "api_key" for each row execute function "api_key_changed"()',
    },
  ],
  properties: {
    id: p.uuid().primary(),
    workspaceId: () => p.manyToOne(Workspace).mapToPk().fieldName('workspace_id').index('api_key_workspace_id_index').deleteRule('cascade'),
    kind: p.text().$type<'api_key' | 'mcp_connection'>().default('api_key'),
    label: p.text().$type<KeyLabel>(),
    name: p.text(),
    scopes: p.array().columnType('text[]'),
    hash: p.text().unique('api_key_hash_unique').nullable(),
    prefix: p.text(),
    createdAt: p.datetime().columnType('timestamptz'),
    expiresAt: p.datetime().columnType('timestamptz').nullable(),
    revokedAt: p.datetime().columnType('timestamptz').nullable(),
    lastUsedAt: p.datetime().columnType('timestamptz').nullable(),
    oauthClientId: p.text().fieldName('oauth_client_id').nullable(),
    oauthGrantId: p.text().fieldName('oauth_grant_id').unique('api_key_oauth_grant_id_unique').nullable(),
    /**
     * When a connection's grant ends (30 days after its newest refresh token, docs/mcp-auth.md): read from the grant's
     * own record, the one the authorization server checks, so the key lists cannot disagree with it. Not a column.
     */
    grantEndsAt: p
      .datetime()
      .formula((cols) => `(select g."expires_at" from "oauth_model" g where g."kind" = 'Grant' and g."id" = ${cols.oauthGrantId})`)
      .nullable(),
    /** Who approved a connection; a key has none. */
    personId: () => p.manyToOne(Person).mapToPk().fieldName('person_id').nullable().deleteRule('cascade'),
  },
});

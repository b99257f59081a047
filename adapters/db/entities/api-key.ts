import { defineEntity, p } from '@mikro-orm/core';
import { Workspace } from './workspace.ts';
import type { KeyLabel } from '../../identity/key-material.ts';

/** An API key. `id` is the public key id; the secret is never stored, only its SHA-256 (`hash`). */
export const ApiKey = defineEntity({
  name: 'ApiKey',
  tableName: 'api_key',
  checks: [{ name: 'api_key_label_check', expression: "label in ('live', 'test')" }],
  properties: {
    id: p.uuid().primary(),
    workspaceId: () => p.manyToOne(Workspace).mapToPk().fieldName('workspace_id').index('api_key_workspace_id_index').deleteRule('cascade'),
    label: p.text().$type<KeyLabel>(),
    name: p.text(),
    scopes: p.array().columnType('text[]'),
    hash: p.text().unique('api_key_hash_unique'),
    prefix: p.text(),
    createdAt: p.datetime().columnType('timestamptz'),
    expiresAt: p.datetime().columnType('timestamptz').nullable(),
    revokedAt: p.datetime().columnType('timestamptz').nullable(),
    lastUsedAt: p.datetime().columnType('timestamptz').nullable(),
  },
});

import { ApiKey } from './api-key.ts';
import { BILLING_ENTITIES } from './billing-entities.ts';
import { Membership } from './membership.ts';
import { Person } from './person.ts';
import { Workspace } from './workspace.ts';

/** Every entity the ORM knows; each domain appends its own (one line each). */
export const ENTITIES = [
  Person,
  Workspace,
  Membership,
  ApiKey,
  ...BILLING_ENTITIES,
];

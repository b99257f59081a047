import { z } from 'zod';
import { HealthShape, WhoAmIShape } from '../../adapters/shapes/system-shapes.ts';
import { health, readiness, whoami as whoamiOf } from '../../resolvers/system.ts';
import { defineOperation, FREE } from './operation.ts';

const readinessStatus = (data: unknown): number => ((data as { status?: string }).status === 'ok' ? 200 : 503);

export const getHealth = defineOperation({
  operationId: 'getHealth',
  description: 'Liveness of the service. No authentication.',
  graphql: { kind: 'query', field: 'health' },
  rest: { method: 'GET', path: '/health', envelope: false },
  tool: 'get_health',
  authentication: 'none',
  scopes: [],
  billing: FREE,
  input: z.object({}),
  output: HealthShape,
  resolve: (_args, ctx) => health(ctx),
  tag: 'System',
  example: {},
});

export const getReadiness = defineOperation({
  operationId: 'getReadiness',
  description: 'Readiness of the service: `degraded` (HTTP 503) while the database is unreachable. No authentication.',
  graphql: { kind: 'query', field: 'readiness', oncePerOperation: true },
  rest: { method: 'GET', path: '/ready', envelope: false, statusFromData: readinessStatus },
  tool: 'get_readiness',
  authentication: 'none',
  scopes: [],
  billing: FREE,
  input: z.object({}),
  output: HealthShape,
  resolve: (_args, ctx) => readiness(ctx),
  tag: 'System',
  example: {},
});

export const whoami = defineOperation({
  operationId: 'whoami',
  description: 'Which API key is in use, its label, scopes and expiry, and its workspace. Free; any valid key.',
  graphql: { kind: 'query', field: 'whoami' },
  rest: { method: 'GET', path: '/v1/whoami' },
  tool: 'whoami',
  authentication: 'key',
  scopes: [],
  billing: FREE,
  input: z.object({}),
  output: WhoAmIShape,
  resolve: (_args, ctx) => whoamiOf(ctx),
  tag: 'Account',
  errorStatuses: [400, 401, 429, 500],
  example: {},
});

import { Meter } from '../../core/meter.ts';
import type { RequestContext } from '../../core/request-context.ts';
import type { ServiceDeps } from '../../core/service-deps.ts';

/** A GraphQL call's context that needs nothing from the service: no key, no dependencies, a fixed clock. */
export const keylessContext = (): RequestContext => ({
  requestId: 'req-unit-0001',
  surface: 'graphql',
  authorization: undefined,
  meter: new Meter(),
  deps: {} as ServiceDeps,
  responseHeaders: {},
  memo: new Map(),
  now: () => new Date('2026-01-01T00:00:00Z'),
});

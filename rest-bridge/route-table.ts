import type { OperationSpec } from '../schema/catalogue/operation.ts';

export interface Route {
  op: OperationSpec;
  pattern: RegExp;
  paramNames: string[];
}

export type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

function compile(op: OperationSpec): Route {
  const paramNames: string[] = [];
  const source = op.rest.path
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      paramNames.push(segment.slice(1));
      return '([^/]+)';
    })
    .join('/');
  return { op, pattern: new RegExp(`^${source}/?$`), paramNames };
}

/** REST routes generated from the catalogue: one per operation, matched by path then method. */
export function createRouteTable(operations: readonly OperationSpec[]) {
  const routes = operations.map(compile);
  return {
    routes,
    match(method: string, pathname: string): RouteMatch {
      const allow: string[] = [];
      for (const route of routes) {
        const match = route.pattern.exec(pathname);
        if (!match) continue;
        // HEAD is not served: a billed GET would run, and be charged, for a response without its body.
        if (route.op.rest.method !== method) {
          allow.push(route.op.rest.method);
          continue;
        }
        const params: Record<string, string> = {};
        route.paramNames.forEach((name, index) => (params[name] = match[index + 1]));
        return { kind: 'found', route, params };
      }
      return allow.length ? { kind: 'method_not_allowed', allow } : { kind: 'not_found' };
    },
  };
}

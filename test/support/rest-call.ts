import type { OperationSpec } from '../../schema/catalogue/operation.ts';
import type { HttpResult, TestService } from './service.ts';

/** Calls an operation over REST with these arguments: path members in the path, the rest in the query or body. */
export function restCall(svc: TestService, key: string, op: OperationSpec, args: Record<string, unknown>): Promise<HttpResult> {
  const rest = { ...args };
  let path = op.rest.path;
  for (const [, name] of op.rest.path.matchAll(/:([A-Za-z0-9_]+)/g)) {
    path = path.replace(`:${name}`, encodeURIComponent(String(rest[name])));
    delete rest[name];
  }
  if (op.rest.method === 'GET' || op.rest.method === 'DELETE') {
    const query = new URLSearchParams(Object.entries(rest).map(([name, value]) => [name, String(value)]));
    return svc.request(op.rest.method, query.size ? `${path}?${query}` : path, { key });
  }
  return svc.request(op.rest.method, path, { key, ...(Object.keys(rest).length ? { body: rest } : {}) });
}

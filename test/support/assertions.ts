import { expect } from 'vitest';
import type { HttpResult } from './service.ts';

/** Credits a response says it charged. */
export function charged(res: { headers: Headers }): number {
  return Number(res.headers.get('x-credits-charged'));
}

/** An error envelope with this status and code, charged nothing. */
export function expectError(res: HttpResult, status: number, code: string, details?: Record<string, unknown>): void {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.meta.requestId).toBe('string');
  if (details) expect(res.body.error.details).toMatchObject(details);
  expect(res.headers.get('x-credits-charged'), 'every response says what it charged').not.toBeNull();
  expect(charged(res)).toBe(0);
}

/** The structured content of an MCP tool result (the same `{data, meta}` envelope as REST). */
export function toolEnvelope(result: unknown): { data: unknown; meta: Record<string, unknown> } {
  const r = result as { structuredContent?: unknown; content?: Array<{ type: string; text?: string }> };
  if (r.structuredContent) return r.structuredContent as { data: unknown; meta: Record<string, unknown> };
  const text = r.content?.find((c) => c.type === 'text')?.text ?? '{}';
  return JSON.parse(text);
}

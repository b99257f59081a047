import { afterEach, describe, expect, it } from 'vitest';
import type { Principal } from '../../../core/request-context.ts';
import { createOpenStreams, type OpenStreams, type StreamAdmission, type StreamSlot } from '../../../mcp-bridge/open-streams.ts';

const T0 = Date.parse('2026-11-25T10:00:00Z');
let nowMs = T0;
let streams: OpenStreams;

const principal = (keyId: string, workspaceId = `ws-${keyId}`, expiresAt: Date | null = null, personId?: string): Principal => ({
  keyId,
  workspaceId,
  expiresAt,
  label: 'live',
  scopes: [],
  createdAt: new Date(T0),
  ...(personId === undefined ? {} : { personId }),
});

function slot(admission: StreamAdmission): StreamSlot {
  if ('refused' in admission) throw new Error(`refused per ${admission.refused}`);
  return admission;
}

function open(options = { maxPerKey: 2, maxPerWorkspace: 3, maxPerPerson: 4, maxPerInstance: 6, maxFreeTier: 5 }): OpenStreams {
  nowMs = T0;
  streams = createOpenStreams({ now: () => new Date(nowMs), ...options });
  return streams;
}

afterEach(() => streams?.close());

describe('open MCP streams', () => {
  it('keeps free-tier workspaces to their pool, counting them in the instance too, and frees their places as they end', () => {
    const s = open({ maxPerKey: 2, maxPerWorkspace: 3, maxPerPerson: 4, maxPerInstance: 4, maxFreeTier: 2 });
    const first = slot(s.open(principal('a'), true));
    slot(s.open(principal('b'), true));
    expect(s.open(principal('c'), true)).toEqual({ refused: 'free_tier', limit: 2 });
    slot(s.open(principal('d'), false));
    slot(s.open(principal('e'), false));
    expect(s.open(principal('f'), false)).toEqual({ refused: 'instance', limit: 4 });
    first.release();
    slot(s.open(principal('c'), true));
    expect(s.open(principal('g'), true)).toEqual({ refused: 'free_tier', limit: 2 });
  });

  it('refuses beyond the per-key bound, and beyond the per-workspace bound across keys', () => {
    const s = open();
    slot(s.open(principal('a', 'w'), false));
    const second = slot(s.open(principal('a', 'w'), false));
    expect(s.open(principal('a', 'w'), false)).toEqual({ refused: 'key', limit: 2 });
    slot(s.open(principal('b', 'w'), false));
    expect(s.open(principal('c', 'w'), false)).toEqual({ refused: 'workspace', limit: 3 });
    // Another workspace is not held back.
    slot(s.open(principal('d', 'v'), false));
    second.release();
    slot(s.open(principal('c', 'w'), false));
  });

  it('refuses beyond the per-person bound across workspaces, and beyond the instance bound for everyone', () => {
    const s = open();
    const first = slot(s.open(principal('a', 'w', null, 'p'), false));
    slot(s.open(principal('a', 'w', null, 'p'), false));
    slot(s.open(principal('b', 'v', null, 'p'), false));
    slot(s.open(principal('c', 'u', null, 'p'), false));
    expect(s.open(principal('d', 't', null, 'p'), false)).toEqual({ refused: 'person', limit: 4 });
    // A workspace without an owner has no person: its keys are bound by key, workspace and instance.
    slot(s.open(principal('e', 's'), false));
    slot(s.open(principal('f', 's'), false));
    expect(s.open(principal('g', 'r', null, 'q'), false)).toEqual({ refused: 'instance', limit: 6 });
    first.release();
    slot(s.open(principal('d', 't', null, 'p'), false));
  });

  it('ends every stream of a changed key, and gives their places back', () => {
    const s = open();
    const a1 = slot(s.open(principal('a', 'w'), false));
    const a2 = slot(s.open(principal('a', 'w'), false));
    const b = slot(s.open(principal('b', 'w'), false));
    s.keyChanged('a');
    expect([a1.signal.aborted, a2.signal.aborted, b.signal.aborted]).toEqual([true, true, false]);
    expect(s.size).toBe(1);
    // The stream's own teardown releasing it later changes nothing.
    a1.release();
    expect(s.size).toBe(1);
    slot(s.open(principal('a', 'w'), false));
  });

  it('ends a stream once its credential expires by the injected clock, not before', () => {
    const s = open();
    const expiring = slot(s.open(principal('a', 'w', new Date(T0 + 60_000)), false));
    const lasting = slot(s.open(principal('b', 'w'), false));
    nowMs = T0 + 59_999;
    s.sweep();
    expect(expiring.signal.aborted).toBe(false);
    nowMs = T0 + 60_000;
    s.sweep();
    expect([expiring.signal.aborted, lasting.signal.aborted]).toEqual([true, false]);
  });

  it('ends every stream when changes may have been missed', () => {
    const s = open();
    const a = slot(s.open(principal('a'), false));
    const b = slot(s.open(principal('b'), false));
    s.endAll();
    expect([a.signal.aborted, b.signal.aborted, s.size]).toEqual([true, true, 0]);
  });
});

import type { SimSubforum } from './forum-sim-records.ts';

/** The platform's error bodies, as recorded (`r-sub-new-403-quarantined.json`). */
export type AccessDenial = { status: number; body: Record<string, unknown> };

export const NOT_FOUND: AccessDenial = { status: 404, body: { message: 'Not Found', error: 404 } };

/** Whether a community's content can be read by a logged-out client; the denial the platform sends if not. */
export function denialFor(sub: SimSubforum | undefined): AccessDenial | undefined {
  if (!sub) return NOT_FOUND;
  if (sub.banned) return { status: 404, body: { reason: 'banned', message: 'Not Found', error: 404 } };
  if (sub.type === 'private') return { status: 403, body: { reason: 'private', message: 'Forbidden', error: 403 } };
  if (sub.type === 'gold_restricted') return { status: 403, body: { reason: 'gold_only', message: 'Forbidden', error: 403 } };
  if (sub.quarantine) {
    return {
      status: 403,
      body: {
        reason: 'quarantined',
        quarantine_message_html: '<div class="md"><p>This community is quarantined.</p></div>',
        message: 'Forbidden',
        quarantine_message: 'This community is quarantined.',
        error: 403,
      },
    };
  }
  return undefined;
}

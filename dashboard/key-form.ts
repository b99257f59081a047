import { defaultKeyExpiry } from '../adapters/identity/identity-store.ts';
import { KEY_LABELS, type KeyLabel } from '../adapters/identity/key-material.ts';
import type { DashboardRequest } from './dashboard-http.ts';
import { EXPIRY_CHOICES, type KeyForm } from './pages/keys-page.ts';

export const KEY_NAME_MAX_LENGTH = 80;

export interface KeyRequest {
  name: string | undefined;
  label: KeyLabel;
  scopes: string[];
  expiresAt: Date | null;
}

/** Reads the key form; a refusal names the field to fix and keeps what was entered. */
export function readKeyForm(request: DashboardRequest, now: Date): { ok: KeyRequest } | { refused: KeyForm } {
  const name = (request.form.get('name') ?? '').trim();
  const label = request.form.get('label') ?? 'live';
  const scopes = request.form.getAll('scopes');
  const expiry = request.form.get('expiry') ?? '';
  const form: KeyForm = { name, label: label as KeyLabel, scopes, expiry };
  if (name.length > KEY_NAME_MAX_LENGTH) return { refused: { ...form, error: `name: at most ${KEY_NAME_MAX_LENGTH} characters.` } };
  if (!KEY_LABELS.includes(label as KeyLabel)) return { refused: { ...form, label: 'live', error: 'label: choose live or test.' } };
  // A key with no scope could only call whoami, usage and limits: almost always a form sent by mistake.
  if (scopes.length === 0) return { refused: { ...form, error: 'scopes: tick at least one scope.' } };
  if (!EXPIRY_CHOICES.some(([value]) => value === expiry)) return { refused: { ...form, expiry: undefined, error: 'expiry: choose one of the offered lifetimes.' } };
  return { ok: { name: name || undefined, label: label as KeyLabel, scopes, expiresAt: expiry === 'never' ? null : defaultKeyExpiry(now, Number(expiry)) } };
}

/** The service's own address as the browser sees it, for the curl examples on the pages. */
export function baseUrlOf(request: DashboardRequest): string {
  return `${request.secure ? 'https' : 'http'}://${request.headers.host ?? 'localhost'}`;
}

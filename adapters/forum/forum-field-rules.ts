/** Field rules shared by the forum mappers, each one a trap recorded in FIELD-NOTES.md. */

export const DEFAULT_FORUM_SITE_URL = 'https://www.reddit.com';

export class ForumPayloadError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForumPayloadError';
  }
}

/** `created_utc` is the instant; `created` was shifted by 8 hours in 2016–2021 payloads and is never read. */
export function epochToIso(epochSeconds: number): string {
  return new Date(Math.round(epochSeconds * 1000)).toISOString();
}

/**
 * `edited` is `false` or epoch seconds. Very old payloads sent `true` with no time: the last edit is then
 * unknown, and the creation time is the only instant we can truthfully give.
 */
export function editedSeconds(edited: boolean | number | undefined, createdUtc: number): number | null {
  if (typeof edited === 'number') return edited;
  return edited === true ? createdUtc : null;
}

/** The spec allows only these two; `special` and any future value read as not distinguished. */
export function distinguishedValue(value: string | null | undefined): string | null {
  return value === 'moderator' || value === 'admin' ? value : null;
}

/** Permalinks and crosspost targets arrive relative (`/r/x/comments/…`). */
export function absoluteUrl(siteUrl: string, value: string): string {
  return /^https?:\/\//i.test(value) ? value : siteUrl + (value.startsWith('/') ? value : `/${value}`);
}

/** Icon and banner fields use `""` for unset; an empty URL is no URL. */
export function nonEmpty(value: string | null | undefined): string | null {
  return typeof value === 'string' && value.length > 0 ? value : null;
}

export function requireString(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length === 0) throw new ForumPayloadError(`forum payload lacks ${field}`);
  return value;
}

export function requireNumber(value: unknown, field: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ForumPayloadError(`forum payload lacks ${field}`);
  return value;
}

/** What stands for a character PostgreSQL text cannot hold (U+0000) or UTF-8 cannot encode (a lone surrogate). */
export const REPLACEMENT = '\uFFFD';

/**
 * Text from outside (a webhook receiver's answer, an error message quoting it, a platform's post) made storable in a
 * `text` column: PostgreSQL and PGlite refuse U+0000, so a statement carrying one fails whole; lone surrogates become
 * U+FFFD too, rather than whatever a driver's encoder makes of them.
 */
export function storableText(text: string): string {
  return text.toWellFormed().replaceAll('\u0000', REPLACEMENT);
}

/** Whether `storableText` keeps the text as it is. */
export function isStorable(text: string): boolean {
  return text.isWellFormed() && !text.includes('\u0000');
}

/** Whether every string of a JSON value, member names included, is stored as it is. */
export function isStorableJson(value: unknown): boolean {
  if (typeof value === 'string') return isStorable(value);
  if (Array.isArray(value)) return value.every(isStorableJson);
  if (value && typeof value === 'object') return Object.entries(value).every(([name, member]) => isStorable(name) && isStorableJson(member));
  return true;
}

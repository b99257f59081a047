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

import type { WireUrlEntity } from './wire.ts';

/**
 * Text helpers for the microblog wire format. Upstream offsets (tweet entity `indices`, `display_text_range`,
 * Article style and entity ranges) count Unicode code points; the spec promises UTF-16 code units, which is also
 * what JavaScript strings index by.
 */

/** UTF-16 offset of the code point at `codePointOffset` (clamped to the text's end). */
export function codePointToUtf16(text: string, codePointOffset: number): number {
  let units = 0;
  let points = 0;
  for (const ch of text) {
    if (points >= codePointOffset) return units;
    units += ch.length;
    points += 1;
  }
  return units;
}

/** Converts a code-point range to a UTF-16 `{offset, length}` range of the same text. */
export function codePointRangeToUtf16(text: string, offset: number, length: number): { offset: number; length: number } {
  const start = codePointToUtf16(text, offset);
  const end = codePointToUtf16(text, offset + length);
  return { offset: start, length: end - start };
}

/**
 * Replaces t.co links by their targets (post text and bios). `indices` count code points of the text as sent
 * (still escaped for full_text); a link without a target or with indices outside the text stays as sent.
 */
export function expandLinks(text: string, urls: WireUrlEntity[] | undefined): string {
  const out = Array.from(text);
  const links = (urls ?? []).flatMap((u) =>
    Array.isArray(u.indices) && typeof u.expanded_url === 'string' ? [{ start: u.indices[0], end: u.indices[1], target: u.expanded_url }] : [],
  );
  for (const { start, end, target } of links.sort((a, b) => b.start - a.start)) {
    if (start < 0 || end > out.length || start >= end) continue;
    out.splice(start, end - start, target);
  }
  return out.join('');
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

/** `legacy.full_text` arrives HTML-escaped (`&amp;`, `&lt;`, `&gt;`); note-tweet text does not, so only full_text goes through this. */
export function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|apos|#39);/g, (_m, name: string) => ENTITIES[name]);
}

/** `Wed Jul 08 21:59:10 +0000 2026` → ISO 8601. */
export function parseClassicDate(value: string | undefined): string {
  const ms = value === undefined ? Number.NaN : Date.parse(value);
  if (Number.isNaN(ms)) throw new TypeError(`Unparseable microblog date: ${value}`);
  return new Date(ms).toISOString();
}

/** Epoch seconds or milliseconds (number or numeric string) → ISO 8601, or null when absent. */
export function epochToIso(value: unknown, unit: 's' | 'ms'): string | null {
  if (value === undefined || value === null || value === '') return null;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isFinite(n)) return null;
  return new Date(unit === 's' ? n * 1000 : n).toISOString();
}

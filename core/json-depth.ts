/**
 * How deep a JSON request body may nest (docs/api-conventions.md "Requests"). The catalogue's inputs nest a few
 * levels; without a bound, a 1 MiB body nested 500,000 deep held the event loop for hundreds of milliseconds in
 * JSON.parse, before the caller's key was checked.
 */
export const MAX_JSON_DEPTH = 64;

/** The refusal of a body nested deeper than that, on every surface (each gives it in its own shape). */
export const TOO_DEEP = {
  message: `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} deep.`,
  details: { field: 'body', limit: 'depth', maximum: MAX_JSON_DEPTH },
} as const;

/** The media types whose bodies are read as JSON: `application/json` and `application/<anything>+json`. */
export const JSON_MEDIA_TYPE = /^application\/(?:[\w.+-]+\+)?json\b/i;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether `text` opens more than `max` arrays or objects inside one another, outside its strings: one linear pass
 * that never parses, so it is safe on any body. Strings are skipped with indexOf, so a long string costs little.
 * Malformed text is only counted: JSON.parse refuses it afterwards.
 */
export function nestsDeeperThan(text: string, max = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      at = closingQuote(text, at);
      if (at < 0) return false;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if ((code === CLOSE_ARRAY || code === CLOSE_OBJECT) && --depth < 0) {
      // JSON.parse stops at an unmatched close: nothing after it is ever nested.
      return false;
    }
  }
  return false;
}

/** The index of the quote that ends the string opened at `open`, or -1 when it is never closed. */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}

/**
 * The keyword syntax of monitors: every word must appear (AND), a "quoted phrase" must appear as written, and a
 * word or phrase after `-` must not appear. Case is ignored; there is no OR (two monitors say it). Compiled into each
 * platform's own search without any user text ever reading as an operator, then checked again locally, so what a
 * platform's search lets through loosely never reaches the results.
 */
export interface KeywordTerm {
  text: string;
  phrase: boolean;
  excluded: boolean;
}

export function parseKeywords(keywords: string): KeywordTerm[] {
  const terms: KeywordTerm[] = [];
  for (const match of keywords.matchAll(/(-?)"([^"]*)"|(\S+)/g)) {
    if (match[2] !== undefined) {
      const text = match[2].trim().toLowerCase();
      if (text) terms.push({ text, phrase: true, excluded: match[1] === '-' });
      continue;
    }
    const token = match[3];
    const excluded = token.length > 1 && token.startsWith('-');
    const text = (excluded ? token.slice(1) : token).replace(/"/g, '').toLowerCase();
    if (text) terms.push({ text, phrase: false, excluded });
  }
  return terms;
}

/**
 * Text a platform search reads as plain words only: operator characters (`:`, quotes, parentheses, `||`, `&&`) become
 * spaces, and a word loses a leading `-`, `+` or `!` (which would exclude or require it).
 */
function plainWords(text: string): string {
  return text
    .replace(/[:"()[\]{}\\^~*?|&]/g, ' ')
    .replace(/(^|\s)[-+!]+/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * The forum's search string: the required words and phrases only (its search has no dependable exclusion); words
 * that look like operators (`subreddit:x`, `AND`) lose the characters and case that make them one.
 */
export function forumQuery(terms: readonly KeywordTerm[]): string {
  return terms
    .filter((term) => !term.excluded)
    .map((term) => {
      const words = plainWords(term.text).replace(/\b(AND|OR|NOT)\b/g, (word) => word.toLowerCase());
      return term.phrase && words.includes(' ') ? `"${words}"` : words;
    })
    .filter(Boolean)
    .join(' ');
}

/** The microblog's search string: every term quoted (a quoted term is never an operator), exclusions as `-"…"`. */
export function microblogQuery(terms: readonly KeywordTerm[]): string {
  return terms
    .map((term) => {
      const text = term.text.replace(/"/g, ' ').trim();
      return text ? `${term.excluded ? '-' : ''}"${text}"` : '';
    })
    .filter(Boolean)
    .join(' ');
}

/** Whether a text satisfies the keywords: every required term in it, no excluded one. */
export function matchesKeywords(text: string, terms: readonly KeywordTerm[]): boolean {
  const haystack = text.toLowerCase();
  return terms.every((term) => haystack.includes(term.text) !== term.excluded);
}

/**
 * Whether any text can satisfy the keywords: not when an excluded term lies within a required one (`python -python`,
 * `python -py`), since a word matches inside longer words and the text holding the required term holds the excluded.
 */
export function satisfiable(terms: readonly KeywordTerm[]): boolean {
  const required = terms.filter((term) => !term.excluded);
  return !terms.some((term) => term.excluded && required.some((other) => other.text.includes(term.text)));
}

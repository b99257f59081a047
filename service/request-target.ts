/** A path of plain segments: no empty, `.` or `..` segment and nothing URL parsing would rewrite. */
const PLAIN_PATH = /^\/$|^(?:\/[\w~%-]+(?:\.[\w~%-]+)*)+\/?$/;

export interface RequestTarget {
  pathname: string;
  /** The query string without its `?`; empty when there is none. */
  search: string;
}

/**
 * The path and query of a request target, as `new URL(target, base)` would give them. A plain path (every API
 * path) is split off as it is, with no URL parsing, which cost more than the rest of a small call; anything
 * else (dot segments, encoded (`%2e`) ones too, `//`, a fragment, characters URL parsing encodes) is parsed by `URL`.
 */
export function requestTarget(target: string | undefined): RequestTarget {
  const raw = target ?? '/';
  const mark = raw.indexOf('?');
  const path = mark < 0 ? raw : raw.slice(0, mark);
  const query = mark < 0 ? '' : raw.slice(mark + 1);
  // `%2e` is a dot to URL parsing: `%2e%2e` is a `..` segment.
  if (PLAIN_PATH.test(path) && !/%2e/i.test(path) && !query.includes('#')) return { pathname: path, search: query };
  // A fixed origin: the Host header is the client's to send, and a malformed one must not fail the request.
  const url = new URL(raw, 'http://localhost');
  return { pathname: url.pathname, search: url.search.slice(1) };
}

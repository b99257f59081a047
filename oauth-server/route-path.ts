/**
 * Whether oidc-provider's router would take `path` (Koa's `ctx.path`, as the router reads it) for the static route
 * `route`. Its router compares paths case-insensitively (it upper-cases them, never turning a non-ASCII character into
 * an ASCII one, so only ASCII letters fold onto a route's) and, failing an exact match, tries once more without one
 * trailing slash: `/oauth/TOKEN` and `/oauth/token/` are the token endpoint too. Every check we add in front of a
 * route uses this, so no spelling reaches the route without passing the check.
 */
export function reachesRoute(path: string, route: string): boolean {
  if (sameIgnoringAsciiCase(path, route)) return true;
  return path.length > 1 && path.endsWith('/') && sameIgnoringAsciiCase(path.slice(0, -1), route);
}

function sameIgnoringAsciiCase(a: string, b: string): boolean {
  return a.length === b.length && a.replace(/[a-z]/g, (c) => c.toUpperCase()) === b.replace(/[a-z]/g, (c) => c.toUpperCase());
}

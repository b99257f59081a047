import { describe, expect, it } from 'vitest';
import { reachesRoute } from '../../oauth-server/route-path.ts';

interface OidcRouter {
  post(name: string, path: string, ...middleware: unknown[]): OidcRouter;
  match(method: string, path: string): { route: { name: string } } | undefined;
}

// oidc-provider's own router (not in its typings): what our checks in front of it must agree with.
const routerModule: string = 'oidc-provider/lib/helpers/router.js';

describe('reachesRoute', () => {
  it('takes exactly the paths oidc-provider routes to a static route', async () => {
    const { default: Router } = (await import(routerModule)) as { default: new () => OidcRouter };
    const router = new Router().post('token', '/oauth/token', () => undefined).post('client', '/oauth/token/:id', () => undefined).post('registration', '/oauth/register', () => undefined);
    const paths = [
      '/oauth/token', '/oauth/token/', '/oauth/TOKEN', '/oauth/Token/', '/OAUTH/token', '/oauth/token//', '/oauth/tokens',
      '/oauth/toke', '/oauth/token/x', '/oauth/%74oken', '/oauth/tokeN/', '/oauth/toKen ', '/oauth/to\u212Aen', '/oauth/\u0074oken',
      '/oauth/tok\u0131n', '/oauth/token\u0000', '/', '',
      // Non-ASCII letters whose upper case is ASCII (ı → I, ſ → S) the router does not fold.
      '/oauth/register', '/oauth/REGISTER/', '/oauth/reg\u0131ster', '/oauth/regi\u017Fter', '/oauth/regi\u017Fter/',
    ];
    for (const path of paths) {
      expect(reachesRoute(path, '/oauth/token'), path).toBe(router.match('POST', path)?.route.name === 'token');
      expect(reachesRoute(path, '/oauth/register'), path).toBe(router.match('POST', path)?.route.name === 'registration');
    }
  });
});

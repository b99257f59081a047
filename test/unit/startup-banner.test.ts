import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startupBanner, type BannerService } from '../../service/banner.ts';

const KEY = 'svc_test_0123456789abcdefghijklmnopqrstuv';
const PASSWORD = 'generated-password-x1';
const service: BannerService = {
  url: 'http://127.0.0.1:8080',
  operatorUrl: 'http://127.0.0.1:8081',
  version: 'abc1234-20261125',
  demo: { key: KEY, person: { email: 'demo@example.com', password: PASSWORD } },
  platforms: { simulated: {} },
};
const config = { dataDir: '/srv/data', graphiql: true };

describe('the startup banner', () => {
  it('in production names the demo files and prints neither the demo key nor the password', () => {
    const text = startupBanner(service, { ...config, databaseUrl: 'postgres://db/svc', graphiql: false }, true).join('\n');
    expect(text).not.toContain(KEY);
    expect(text).not.toContain(PASSWORD);
    expect(text).toContain(`demo key:  in ${join('/srv/data', 'demo-key')}`);
    expect(text).toContain(`demo sign-in: demo@example.com, password in ${join('/srv/data', 'demo-person')}`);
    expect(text).toContain('GraphiQL:  off in production');
    expect(text).toContain(`try:       curl -H "Authorization: Bearer $(cat ${join('/srv/data', 'demo-key')})" http://127.0.0.1:8080/v1/whoami`);
  });

  it('on the embedded default prints the demo key and sign-in, as the README shows', () => {
    const text = startupBanner(service, config, false).join('\n');
    expect(text).toContain(`demo key:  ${KEY}  (also in /srv/data/demo-key)`);
    expect(text).toContain(`demo sign-in: demo@example.com / ${PASSWORD}  (also in /srv/data/demo-person)`);
  });

  it('without a demo prints no demo lines', () => {
    expect(startupBanner({ ...service, demo: undefined }, config, true).join('\n')).not.toMatch(/demo/);
  });
});

import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../service/config.ts';

const KEY = `k1:${Buffer.alloc(32, 7).toString('base64')}`;
const COMPLETE = {
  DATABASE_URL: 'postgres://db.example/svc',
  SVC_OPERATOR_TOKEN: 'operator-token-0123456789',
  SVC_CURSOR_KEYS: KEY,
  SVC_WEBHOOK_KEYS: KEY,
  SVC_OAUTH_KEYS: KEY,
  FORUM_UPSTREAM_URL: 'https://forum.example',
  MICROBLOG_UPSTREAM_URL: 'https://microblog.example',
};

describe('production configuration', () => {
  it('keeps the embedded default a one-command demo', () => {
    const config = configFromEnv({});
    expect(config.demo).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
  });

  it.each(['SVC_OPERATOR_TOKEN', 'SVC_CURSOR_KEYS', 'SVC_WEBHOOK_KEYS', 'SVC_OAUTH_KEYS', 'FORUM_UPSTREAM_URL', 'MICROBLOG_UPSTREAM_URL'])(
    'refuses to start without %s, naming it',
    (variable) => {
      const env: Record<string, string> = { ...COMPLETE };
      delete env[variable];
      expect(() => configFromEnv(env)).toThrow(new RegExp(variable));
    },
  );

  it('is production with NODE_ENV=production too, even on the embedded database', () => {
    expect(() => configFromEnv({ NODE_ENV: 'production' })).toThrow(/SVC_OPERATOR_TOKEN/);
  });

  it('uses the simulated platforms only when chosen, and creates no demo unless asked', () => {
    const { FORUM_UPSTREAM_URL: _f, MICROBLOG_UPSTREAM_URL: _m, ...noUpstreams } = COMPLETE;
    const simulated = configFromEnv({ ...noUpstreams, SVC_SIMULATED_PLATFORMS: 'on' });
    expect(simulated.forumUpstream).toBeUndefined();
    expect(simulated.demo).toBe(false);
    expect(configFromEnv({ ...COMPLETE, SVC_DEMO: 'true' }).demo).toBe(true);
  });
});

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
  SVC_PUBLIC_URL: 'https://api.example.com',
};

describe('production configuration', () => {
  it('keeps the embedded default a one-command demo', () => {
    const config = configFromEnv({});
    expect(config.demo).toBe(true);
    expect(config.databaseUrl).toBeUndefined();
  });

  it('serves GraphiQL on the embedded default only: production turns it off (unpkg scripts, no integrity check)', () => {
    expect(configFromEnv({}).graphiql).toBe(true);
    expect(configFromEnv(COMPLETE).graphiql).toBe(false);
    expect(configFromEnv({ ...COMPLETE, DATABASE_URL: '', NODE_ENV: 'production' }).graphiql).toBe(false);
  });

  it.each(['SVC_OPERATOR_TOKEN', 'SVC_CURSOR_KEYS', 'SVC_WEBHOOK_KEYS', 'SVC_OAUTH_KEYS', 'SVC_PUBLIC_URL', 'FORUM_UPSTREAM_URL', 'MICROBLOG_UPSTREAM_URL'])(
    'refuses to start without %s, naming it',
    (variable) => {
      const env: Record<string, string> = { ...COMPLETE };
      delete env[variable];
      expect(() => configFromEnv(env)).toThrow(new RegExp(variable));
    },
  );

  it('takes the public URL (the OAuth issuer) as https, or as http only on a loopback host', () => {
    expect(configFromEnv(COMPLETE).publicUrl).toBe('https://api.example.com');
    for (const local of ['http://127.0.0.1:8080', 'http://localhost:8080', 'http://[::1]:8080']) {
      expect(configFromEnv({ ...COMPLETE, SVC_PUBLIC_URL: local }).publicUrl).toBe(local);
    }
    for (const remote of ['http://api.example.com', 'http://10.0.0.5:8080', 'http://0.0.0.0:8080', 'http://127.0.0.1.example.com']) {
      expect(() => configFromEnv({ ...COMPLETE, SVC_PUBLIC_URL: remote })).toThrow(/SVC_PUBLIC_URL must be https in production/);
    }
    // The embedded default is a demo on this machine: plain http anywhere, and none at all.
    expect(configFromEnv({ SVC_PUBLIC_URL: 'http://demo.example:8080' }).publicUrl).toBe('http://demo.example:8080');
  });

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

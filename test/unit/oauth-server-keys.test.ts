import { createPrivateKey, createPublicKey, sign, verify } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { parseKeyring } from '../../adapters/db/keyring.ts';
import { oauthServerKeys } from '../../adapters/oauth/server-keys.ts';

const keyring = (text: string) => parseKeyring(text, 'SVC_OAUTH_KEYS');
const NEW = `k2:${Buffer.alloc(32, 2).toString('base64')}`;
const OLD = `k1:${Buffer.alloc(32, 1).toString('base64')}`;

describe('the authorization server’s keys from SVC_OAUTH_KEYS', () => {
  it('are the same for every instance given the same keyring', () => {
    expect(oauthServerKeys(keyring(`${NEW},${OLD}`))).toEqual(oauthServerKeys(keyring(`${NEW},${OLD}`)));
    expect(oauthServerKeys(keyring(NEW))).not.toEqual(oauthServerKeys(keyring(OLD)));
  });

  it('keep the keyring’s order, named by its ids: the first signs, every one verifies', () => {
    const keys = oauthServerKeys(keyring(`${NEW},${OLD}`));
    expect(keys.jwks.keys.map((jwk) => jwk.kid)).toEqual(['k2', 'k1']);
    expect(keys.jwks.keys[1]).toEqual(oauthServerKeys(keyring(OLD)).jwks.keys[0]);
    expect(keys.cookieKeys[1]).toEqual(oauthServerKeys(keyring(OLD)).cookieKeys[0]);
  });

  it('give a P-256 key whose public half verifies what its private half signed, apart from the cookie key', () => {
    const [jwk] = oauthServerKeys(keyring(NEW)).jwks.keys;
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ES256', use: 'sig' });
    const { d: _private, ...publicHalf } = jwk;
    const signature = sign('sha256', Buffer.from('payload'), createPrivateKey({ key: jwk, format: 'jwk' }));
    expect(verify('sha256', Buffer.from('payload'), createPublicKey({ key: publicHalf, format: 'jwk' }), signature)).toBe(true);
    expect(oauthServerKeys(keyring(NEW)).cookieKeys[0]).not.toBe(jwk.d);
  });
});

import { describe, expect, it } from 'vitest';
import { configFromEnv } from '../../service/config.ts';

describe('SVC_PUBLIC_URL (the OAuth issuer and the /mcp audience)', () => {
  it('is unset by default: the listener’s own URL is used', () => {
    expect(configFromEnv({}).publicUrl).toBeUndefined();
  });

  it('keeps the origin of a bare URL, with or without the trailing slash', () => {
    expect(configFromEnv({ SVC_PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe('https://api.example.com');
    expect(configFromEnv({ SVC_PUBLIC_URL: 'https://api.example.com:8443' }).publicUrl).toBe('https://api.example.com:8443');
  });

  it.each(['api.example.com', 'ftp://api.example.com', 'https://api.example.com/base', 'https://api.example.com/?x=1'])('refuses %s, naming the variable', (value) => {
    expect(() => configFromEnv({ SVC_PUBLIC_URL: value })).toThrow(/SVC_PUBLIC_URL must be a bare http\(s\) origin/);
  });
});

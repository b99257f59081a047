import { describe, expect, it } from 'vitest';
import { safeNext } from '../../../dashboard/signed-in.ts';

const FALLBACK = '/dashboard/workspaces';

describe('safeNext keeps only paths on this origin', () => {
  it.each([
    ['/dashboard/workspaces/w1/keys', '/dashboard/workspaces/w1/keys'],
    ['/oauth/interaction/abc?x=1#top', '/oauth/interaction/abc?x=1#top'],
    // Encoded forms are paths here: the browser does not decode them in a Location, so they stay on this origin.
    ['/%09/evil.example', '/%09/evil.example'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    ['/%5Cevil.example', '/%5Cevil.example'],
    ['/a/../dashboard', '/dashboard'],
  ])('%j → %j', (next, expected) => {
    expect(safeNext(next)).toBe(expected);
  });

  it.each([
    '/\t/evil.example',
    '/\n/evil.example',
    '/\r/evil.example',
    '/\0/evil.example',
    '\t//evil.example',
    '/ /evil.example',
    '/\u007f/evil.example',
    '//evil.example',
    '/\\evil.example',
    '/\\/evil.example',
    '\\\\evil.example',
    'https:evil.example',
    'https://evil.example/',
    'http://dashboard.invalid/x',
    'javascript:alert(1)',
    'evil.example',
    '/.//evil.example',
    '/%2e%2e//evil.example',
    '/%2E//evil.example',
    '',
  ])('%j → the default page', (next) => {
    expect(safeNext(next)).toBe(FALLBACK);
  });

  it('falls back when there is no next', () => {
    expect(safeNext(null)).toBe(FALLBACK);
    expect(safeNext(undefined, '/elsewhere')).toBe('/elsewhere');
  });
});

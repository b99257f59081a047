import { describe, expect, it } from 'vitest';
import { MAX_CLIENT_METADATA_BYTES, MAX_REDIRECT_URIS, refuseOversizedMetadata } from '../../oauth-server/client-metadata-bounds.ts';

/** What the hook refuses with (oidc-provider's error_description), or undefined when it lets the client through. */
function refusal(ctx: unknown, metadata: Record<string, unknown>): string | undefined {
  try {
    refuseOversizedMetadata(ctx, metadata);
    return undefined;
  } catch (error) {
    return (error as { error_description: string }).error_description;
  }
}

const uris = (n: number) => Array.from({ length: n }, (_, i) => `http://127.0.0.1:${10_000 + i}/callback`);

/** oidc-provider runs the hook on every client it builds; the bounds hold for the ones being accepted (review 9). */
describe('client metadata bounds', () => {
  const request = {};
  const overCount = { client_id: 'Qx7-stored', redirect_uris: uris(MAX_REDIRECT_URIS + 1) };
  const overSize = { client_id: 'Qx7-stored', redirect_uris: uris(1), client_name: 'x'.repeat(MAX_CLIENT_METADATA_BYTES) };

  it('refuses a registration (the hook is given its request) over either bound', () => {
    expect(refusal(request, overCount)).toBe(`redirect_uris: at most ${MAX_REDIRECT_URIS} may be registered, not ${MAX_REDIRECT_URIS + 1}`);
    expect(refusal(request, overSize)).toMatch(/bytes as JSON/);
    expect(refusal(request, { ...overCount, redirect_uris: uris(MAX_REDIRECT_URIS) })).toBeUndefined();
  });

  it('refuses a client ID metadata document (its client_id is its https URL) over either bound', () => {
    const client_id = 'https://agent.example/clients/agent.json';
    expect(refusal(undefined, { ...overCount, client_id })).toMatch(/^redirect_uris: at most/);
    expect(refusal(undefined, { ...overSize, client_id })).toMatch(/bytes as JSON/);
  });

  it('lets a client read back from storage (no request, its own client_id) through, whatever it holds', () => {
    expect(refusal(undefined, overCount)).toBeUndefined();
    expect(refusal(undefined, overSize)).toBeUndefined();
  });
});

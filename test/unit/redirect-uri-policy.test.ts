import { describe, expect, it } from 'vitest';
import { redirectUriRefusal } from '../../oauth-server/redirect-uri-policy.ts';

describe('redirect URI policy', () => {
  it('refuses a URI whose parsed form, which the check reads, is not the raw string the browser is sent to', () => {
    const refused: Array<[string, RegExp]> = [
      // WHATWG URL reads `\` as `/`: the check saw localhost, a browser may go to evil.example.
      ['http://localhost\\@evil.example/cb', /backslash/],
      ['com.example.agent:/oauth\\callback', /backslash/],
      ['http://evil.example@127.0.0.1/cb', /user name or password/],
      ['https://user:secret@app.example.com/cb', /user name or password/],
      ['https://%2A.example.com/cb', /normal form/],
      ['https://APP.example.com/cb', /normal form/],
      ['http://127.0.0.1:080/cb', /normal form/],
      ['https://app.example.com/a b', /normal form/],
      ['http://localhost:0/cb', /port 0/],
    ];
    for (const [uri, reason] of refused) expect(redirectUriRefusal(uri), uri).toMatch(reason);
  });

  it('accepts what MCP clients send, and an origin without its slash', () => {
    for (const uri of [
      'https://claude.ai/api/mcp/auth_callback',
      'http://localhost:54212/callback',
      'http://127.0.0.1:33418/',
      'https://vscode.dev/redirect',
      'http://localhost:6274/oauth/callback',
      'http://[::1]:8976/callback',
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'com.example.agent:/oauth/callback',
      'https://agent.example.com',
      'http://127.0.0.1:8080/cb?state=kept',
    ]) {
      expect(redirectUriRefusal(uri), uri).toBeUndefined();
    }
  });
});

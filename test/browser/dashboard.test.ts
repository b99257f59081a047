import { execFile } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDbFromOrm } from '../../adapters/db/sql.ts';
import { createConnectionStore } from '../../adapters/oauth/connection-store.ts';
import { oauthModelAdapterFactory } from '../../adapters/oauth/oauth-model-adapter.ts';
import { findChromium, NO_BROWSER_NOTICE } from '../support/chromium.ts';
import { startTestService, type TestService } from '../support/service.ts';

const executablePath = findChromium();
if (!executablePath) console.warn(`dashboard browser tests ${NO_BROWSER_NOTICE}`);
/** Set to a folder to keep screenshots of the main pages (outside the repository). */
const screenshots = process.env.DASHBOARD_SCREENSHOTS;

/** What `curl -H "Authorization: Bearer …" …/v1/whoami` answers: the HTTP status, as a person would check it. */
async function curlWhoami(url: string, key: string): Promise<number> {
  const { stdout } = await promisify(execFile)('curl', ['-s', '-o', '/dev/null', '-w', '%{http_code}', '-H', `Authorization: Bearer ${key}`, `${url}/v1/whoami`]);
  return Number(stdout);
}

describe.skipIf(!executablePath)(`dashboard in headless Chromium${executablePath ? '' : ` — ${NO_BROWSER_NOTICE}`}`, () => {
  let svc: TestService;
  let browser: Browser;
  let page: Page;

  async function shoot(name: string): Promise<void> {
    if (!screenshots) return;
    await mkdir(screenshots, { recursive: true });
    await page.screenshot({ path: join(screenshots, `${name}.png`), fullPage: true });
  }

  beforeAll(async () => {
    svc = await startTestService({ jobs: { autostart: false } });
    browser = await chromium.launch({ executablePath, headless: true, chromiumSandbox: false });
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    // Under the test's own timeout, so a missing element fails with its locator instead of a bare timeout.
    page.setDefaultTimeout(10_000);
  });

  afterAll(async () => {
    await browser?.close();
    await svc?.close();
  });

  it('signs up from the sign-in page and lands on a workspace of their own', async () => {
    await page.goto(`${svc.url}/dashboard`);
    expect(new URL(page.url()).pathname).toBe('/dashboard/sign-in');
    await shoot('sign-in');
    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByLabel('Name').fill('Ada Lovelace');
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel(/^Password/).fill('analytical-engine-1843');
    await page.getByRole('button', { name: 'Create account' }).click();
    expect(new URL(page.url()).pathname).toBe('/dashboard/workspaces');
    await expect(page.getByRole('link', { name: "Ada Lovelace's workspace" }).isVisible()).resolves.toBe(true);
    await shoot('workspaces');
  });

  it('creates a key and shows it once; revoked, the API refuses it', async () => {
    await page.getByRole('link', { name: "Ada Lovelace's workspace" }).click();
    expect(page.url()).toMatch(/\/dashboard\/workspaces\/[0-9a-f-]{36}\/keys$/);
    await page.getByLabel('Name').fill('crawler');
    await page.getByRole('radio', { name: /svc_test_/ }).check();
    await page.getByRole('checkbox', { name: 'monitors:read' }).check();
    await page.getByLabel('Expires').selectOption('30');
    await page.getByRole('button', { name: 'Create key' }).click();
    const secret = (await page.locator('#new-key').textContent()) ?? '';
    expect(secret).toMatch(/^svc_test_[0-9A-Za-z]{33}$/);
    await shoot('key-created');
    expect(await curlWhoami(svc.url, secret)).toBe(200);

    await page.getByRole('link', { name: 'Done: back to the keys' }).click();
    expect(await page.content()).not.toContain(secret);
    const row = page.locator('table.keys tr', { hasText: 'crawler' });
    await expect(row.locator('.mono').first().textContent()).resolves.toBe(`${secret.slice(0, 20)}…`);
    await expect(row.locator('.last-used').textContent()).resolves.toMatch(/UTC$/);
    // An approved MCP client shares the list (its approval flow is tested with the OAuth server).
    const person = await svc.service.identity.getPersonByEmail('ada@example.com');
    const workspaceId = new URL(page.url()).pathname.split('/')[3];
    const db = sqlDbFromOrm(svc.service.orm);
    // Its grant, as the approval saves it: a connection lives as long as its grant (here 30 days).
    await oauthModelAdapterFactory(db, () => new Date())('Grant').upsert('browser-test-grant', { accountId: person!.id, clientId: 'browser-test-client' }, 30 * 86_400);
    await createConnectionStore(db, () => new Date()).create({
      workspaceId,
      personId: person!.id,
      clientId: 'browser-test-client',
      clientName: 'Claude Desktop',
      scopes: ['read:social', 'usage:read'],
      grantId: 'browser-test-grant',
    });
    await page.reload();
    await expect(page.locator('table.keys tr', { hasText: 'Claude Desktop (MCP)' }).getByRole('button', { name: 'Revoke' }).isVisible()).resolves.toBe(true);
    await shoot('keys');
    await row.getByRole('button', { name: 'Revoke' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toContain('revoked: calls with it now get 401.');
    expect(await curlWhoami(svc.url, secret)).toBe(401);
  });

  it('renders the usage chart with the day of the calls', async () => {
    const workspacePath = new URL(page.url()).pathname.replace(/\/keys$/, '');
    const workspaceId = workspacePath.split('/').pop() as string;
    const { key } = await svc.newKey({ workspaceId, scopes: ['read:social', 'usage:read', 'monitors:write', 'webhooks:write'] });
    for (const id of ['1a00005', '1a00006']) expect((await svc.request('GET', `/v1/forum/posts/${id}`, { key })).status).toBe(200);

    await page.getByRole('link', { name: 'Usage' }).click();
    const chart = page.locator('svg#spend-chart');
    expect(await chart.isVisible()).toBe(true);
    expect(await chart.locator('rect.bar').count()).toBe(30);
    const today = chart.locator('rect.bar').last();
    expect(Number(await today.getAttribute('data-credits'))).toBeGreaterThan(0);
    expect((await today.boundingBox())?.height).toBeGreaterThan(10);
    expect((await chart.locator('rect.bar').first().boundingBox())?.height ?? 0).toBe(0);
    await shoot('usage');

    // Monitors and webhooks pages, with something on them.
    const monitor = await svc.request('POST', '/v1/monitors', { key, body: { name: 'Rust watch', target: { kind: 'search', keywords: 'rust -java' } } });
    await svc.request('POST', `/v1/monitors/${monitor.body.data.id}/run`, { key });
    const webhook = await svc.request('POST', '/v1/webhooks', { key, body: { name: 'inbox', url: 'http://127.0.0.1:9/hook' } });
    await svc.request('POST', `/v1/webhooks/${webhook.body.data.id}/test`, { key });
    await page.getByRole('link', { name: 'Monitors' }).click();
    await page.getByRole('link', { name: 'Rust watch' }).click();
    expect(await page.locator('#runs').isVisible()).toBe(true);
    await shoot('monitor');
    await page.getByRole('link', { name: 'Webhooks' }).click();
    expect(await page.locator('#deliveries').isVisible()).toBe(true);
    await shoot('webhooks');
  });

  it('rotates a key: create the twin, see traffic move through whoami, revoke the old one', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Name').fill('service');
    await page.getByRole('button', { name: 'Create key' }).click();
    const oldSecret = (await page.locator('#new-key').textContent()) ?? '';
    await page.getByRole('link', { name: 'Done: back to the keys' }).click();
    await page.locator('table.keys tr', { hasText: 'service' }).getByRole('link', { name: 'Rotate' }).click();
    await page.getByRole('button', { name: 'Create the new key' }).click();
    const newSecret = (await page.locator('#new-key').textContent()) ?? '';
    expect(newSecret).toMatch(/^svc_live_/);
    await expect(page.getByText('The new key has not been used yet.').isVisible()).resolves.toBe(true);

    expect(await curlWhoami(svc.url, newSecret)).toBe(200);
    const statusPath = (await page.locator('input[name="next"]').getAttribute('value')) as string;
    await page.goto(`${svc.url}${statusPath}`);
    await expect(page.getByText('Traffic reached the new key.').isVisible()).resolves.toBe(true);
    await shoot('rotate');
    await page.getByRole('button', { name: /^Revoke the old key/ }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Rotation complete: the old key is revoked.');
    expect(await curlWhoami(svc.url, oldSecret)).toBe(401);
    expect(await curlWhoami(svc.url, newSecret)).toBe(200);
  });
});

import { execFile } from 'node:child_process';
import { chmod, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DashboardClient } from '../support/dashboard-client.ts';
import { killServiceProcesses, refusedDemoProcess, startDemoProcess, type DemoProcess } from '../support/service-process.ts';

/** `npm start` with no configuration, as a newcomer runs it: a real process on the embedded PGlite default. */
const root = process.cwd();
let dataDir: string;

const whoami = (url: string, key: string) => fetch(`${url}/v1/whoami`, { headers: { authorization: `Bearer ${key}` } });

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'svc-embedded-'));
  // As an older start left it: the service tightens it.
  await chmod(dataDir, 0o755);
});
afterAll(async () => {
  await killServiceProcesses();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the embedded default', () => {
  let first: DemoProcess;
  let url: string;
  let key: string;

  it('starts with no configuration, prints the URLs and a demo key, and writes the key with mode 600', async () => {
    first = await startDemoProcess({ dataDir });
    ({ url, key } = first);
    expect(first.output()).toContain(`GraphiQL:  ${url}/graphql`);
    expect(key).toMatch(/^svc_(live|test)_/);
    // The embedded default prints the key itself (README); `key` is what the file holds.
    expect(first.output()).toContain(`demo key:  ${key}  (also in ${join(dataDir, 'demo-key')})`);
    expect((await stat(join(dataDir, 'demo-key'))).mode & 0o777).toBe(0o600);
    // The embedded database's own files are 0644: the folder keeps everyone else out.
    expect((await stat(dataDir)).mode & 0o777).toBe(0o700);
    const res = await whoami(url, key);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: { scopes: string[] } }).data.scopes).toContain('read:social');
  }, 90_000);

  it('refuses a second process on the same data folder with a clear message', async () => {
    const second = await refusedDemoProcess(dataDir);
    expect(second.code).not.toBe(0);
    expect(second.output).toMatch(/already (in use|locked|owned)|lock/i);
    expect((await whoami(url, key)).status).toBe(200);
  }, 60_000);

  it('the operator CLI creates a workspace and a key, revokes it, and refunds in part only when told', async () => {
    const cli = (...args: string[]) =>
      promisify(execFile)(process.execPath, ['admin/cli.ts', ...args, '--json'], { cwd: root, env: { ...process.env, SVC_DATA_DIR: dataDir, SVC_OPERATOR_TOKEN: '' } });
    const workspace = JSON.parse((await cli('workspace:create', '--name', 'CLI workspace')).stdout).data;
    expect(workspace.id).toMatch(/^[0-9a-f-]{36}$/);
    // An email someone already holds makes its person the owner only with --existing-owner.
    const owned = JSON.parse((await cli('workspace:create', '--name', 'Customer', '--owner-email', 'customer@example.com')).stdout).data;
    expect(owned).toMatchObject({ ownerExisted: false });
    const held = await cli('workspace:create', '--name', 'Customer (2)', '--owner-email', 'customer@example.com').catch((error: { stdout: string; code: number }) => error);
    expect('code' in held && held.code).toBe(1);
    expect(JSON.parse((held as { stdout: string }).stdout).error).toMatchObject({ code: 'conflict', details: { field: 'existingOwner', personId: owned.ownerPersonId } });
    const told = JSON.parse((await cli('workspace:create', '--name', 'Customer (2)', '--owner-email', 'customer@example.com', '--existing-owner')).stdout).data;
    expect(told).toMatchObject({ ownerPersonId: owned.ownerPersonId, ownerExisted: true });
    const created = JSON.parse((await cli('key:create', '--workspace', workspace.id, '--scopes', 'read:forum,usage:read', '--label', 'test', '--no-expiry')).stdout).data;
    expect(created.key).toMatch(/^svc_test_/);
    expect((await whoami(url, created.key)).status).toBe(200);
    await cli('key:revoke', '--key-id', created.keyId);
    expect((await whoami(url, created.key)).status).toBe(401);
    const refused = await cli('key:create', '--workspace', workspace.id, '--scopes', 'read:everything').catch((error: { stdout: string; code: number }) => error);
    expect('code' in refused && refused.code).toBe(1);
    expect(JSON.parse((refused as { stdout: string }).stdout).error).toMatchObject({ code: 'invalid_request', details: { field: 'scopes' } });

    // A refund asking more credits than are left is refused, unless --partial: then the dollars' share is booked.
    await cli('credits:purchase', '--workspace', workspace.id, '--usd', '1', '--credits', '300');
    const whole = await cli('credits:refund', '--workspace', workspace.id, '--usd', '1', '--credits', '400').catch((error: { stdout: string; code: number }) => error);
    expect('code' in whole && whole.code).toBe(1);
    expect(JSON.parse((whole as { stdout: string }).stdout).error).toMatchObject({ code: 'conflict' });
    const partial = JSON.parse((await cli('credits:refund', '--workspace', workspace.id, '--usd', '1', '--credits', '400', '--partial')).stdout).data;
    expect(partial.refund).toEqual({ usdCents: 75, usdCentsAsked: 100, creditsAsked: 400, creditsTakenBack: 300 });
  }, 60_000);

  it('prints the demo person, writes it with mode 600, and the demo person signs in to the workspace of the demo key', async () => {
    const printed = /demo sign-in: (\S+) \/ (\S+)/.exec(first.output());
    expect(printed?.[1]).toBe('demo@example.com');
    const file = join(dataDir, 'demo-person');
    expect(await readFile(file, 'utf8')).toBe(`email: demo@example.com\npassword: ${printed?.[2]}\n`);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(first.output()).toContain(`dashboard: ${url}/dashboard`);
    const browser = new DashboardClient(url);
    expect((await browser.signIn('demo@example.com', printed![2])).status).toBe(303);
    const workspaceId = ((await (await whoami(url, key)).json()) as { data: { workspaceId: string } }).data.workspaceId;
    expect((await browser.get('/dashboard/workspaces')).body).toContain(workspaceId);
  }, 60_000);

  it('keeps the data, the same demo key and the demo person across a restart', async () => {
    const password = /demo sign-in: \S+ \/ (\S+)/.exec(first.output())?.[1] as string;
    await first.stop();
    const again = await startDemoProcess({ dataDir });
    expect(again.key).toBe(key);
    expect((await whoami(again.url, key)).status).toBe(200);
    expect(again.output()).toContain(`demo sign-in: demo@example.com / ${password}`);
    expect((await new DashboardClient(again.url).signIn('demo@example.com', password)).status).toBe(303);
    await again.stop();
  }, 90_000);
});

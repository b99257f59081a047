import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

/**
 * Operator CLI: talks to the running service's operator API (never to the database directly, so it works
 * the same on the embedded PGlite default, whose folder only the service may open).
 */
const USAGE = `Usage: npm run admin -- <command> [options] [--json]

Commands:
  workspace:create --name NAME [--owner-email EMAIL [--existing-owner]]
                   (a new person owns it; refused when someone already holds EMAIL, since sign-up does not
                   verify emails: check who they are, then add --existing-owner to make them the owner)
  key:create       --workspace ID --scopes a,b,… [--label live|test] [--name NAME] [--expires-in-days N | --no-expiry]
  key:revoke       --key-id ID
  keys:list        --workspace ID
  credits:purchase --workspace ID --usd AMOUNT --credits N [--note TEXT]
  credits:refund   --workspace ID --usd AMOUNT --credits N [--partial] [--note TEXT]
                   (refused unless every credit asked is unspent; --partial takes back those that are and
                   books the dollars' share, rounded down to a cent)
  spending:pause   --workspace ID
  spending:resume  --workspace ID
  ledger           --workspace ID
  usage            --workspace ID
  audit            (every operator action: who, what, when)

Connection: --url of the operator API (default $SVC_OPERATOR_URL, the address the running service wrote to
                  $SVC_DATA_DIR/operator-url, or http://127.0.0.1:8081)
            --token (default $SVC_OPERATOR_TOKEN or the file $SVC_DATA_DIR/operator-token)`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    json: { type: 'boolean', default: false },
    url: { type: 'string' },
    token: { type: 'string' },
    name: { type: 'string' },
    'owner-email': { type: 'string' },
    'existing-owner': { type: 'boolean', default: false },
    workspace: { type: 'string' },
    scopes: { type: 'string' },
    label: { type: 'string' },
    'expires-in-days': { type: 'string' },
    'no-expiry': { type: 'boolean', default: false },
    partial: { type: 'boolean', default: false },
    'key-id': { type: 'string' },
    usd: { type: 'string' },
    credits: { type: 'string' },
    note: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  console.error(message);
  process.exit(2);
}

function need(name: keyof typeof values): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') fail(`--${name} is required.\n\n${USAGE}`);
  return value;
}

function integer(name: keyof typeof values): number {
  const text = need(name);
  if (!/^\d+$/.test(text)) fail(`--${name} must be a whole number, got '${text}'`);
  return Number(text);
}

function cents(): number {
  const text = need('usd');
  if (!/^\d+(\.\d{1,2})?$/.test(text)) fail(`--usd must be an amount like 5 or 12.50, got '${text}'`);
  return Math.round(Number(text) * 100);
}

function operatorToken(): string {
  const token = values.token ?? process.env.SVC_OPERATOR_TOKEN;
  if (token) return token;
  const file = join(resolve(process.env.SVC_DATA_DIR ?? './data'), 'operator-token');
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return fail(`No operator token: pass --token, set SVC_OPERATOR_TOKEN, or run from where ${file} exists.`);
  }
}

const command = positionals[0];
if (!command || values.help) {
  console.log(USAGE);
  process.exit(command ? 0 : 2);
}

const requests: Record<string, () => { method: 'GET' | 'POST'; path: string; body?: unknown }> = {
  'workspace:create': () => ({
    method: 'POST',
    path: '/operator/workspaces',
    body: { name: need('name'), ...(values['owner-email'] ? { ownerEmail: values['owner-email'] } : {}), ...(values['existing-owner'] ? { existingOwner: true } : {}) },
  }),
  'key:create': () => ({
    method: 'POST',
    path: '/operator/keys',
    body: {
      workspaceId: need('workspace'),
      scopes: need('scopes').split(',').map((scope) => scope.trim()).filter(Boolean),
      label: values.label ?? 'live',
      ...(values.name ? { name: values.name } : {}),
      expiresInDays: values['no-expiry'] ? null : values['expires-in-days'] ? integer('expires-in-days') : 90,
    },
  }),
  'key:revoke': () => ({ method: 'POST', path: `/operator/keys/${need('key-id')}/revoke` }),
  'keys:list': () => ({ method: 'GET', path: `/operator/workspaces/${need('workspace')}/keys` }),
  'credits:purchase': () => ({ method: 'POST', path: `/operator/workspaces/${need('workspace')}/purchases`, body: { usdCents: cents(), credits: integer('credits'), ...(values.note ? { note: values.note } : {}) } }),
  'credits:refund': () => ({
    method: 'POST',
    path: `/operator/workspaces/${need('workspace')}/refunds`,
    body: { usdCents: cents(), credits: integer('credits'), ...(values.partial ? { partial: true } : {}), ...(values.note ? { note: values.note } : {}) },
  }),
  'spending:pause': () => ({ method: 'POST', path: `/operator/workspaces/${need('workspace')}/pause` }),
  'spending:resume': () => ({ method: 'POST', path: `/operator/workspaces/${need('workspace')}/resume` }),
  ledger: () => ({ method: 'GET', path: `/operator/workspaces/${need('workspace')}/ledger` }),
  usage: () => ({ method: 'GET', path: `/operator/workspaces/${need('workspace')}/usage` }),
  audit: () => ({ method: 'GET', path: '/operator/audit' }),
};

const build = requests[command];
if (!build) fail(`Unknown command '${command}'.\n\n${USAGE}`);
const { method, path, body } = build();
/** The operator API listens apart from the public API: the running service says where, in its data folder. */
function operatorUrl(): string {
  try {
    return readFileSync(join(resolve(process.env.SVC_DATA_DIR ?? './data'), 'operator-url'), 'utf8').trim();
  } catch {
    return 'http://127.0.0.1:8081';
  }
}

const base = (values.url ?? process.env.SVC_OPERATOR_URL ?? operatorUrl()).replace(/\/$/, '');

let response: Response;
try {
  response = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${operatorToken()}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
} catch (error) {
  fail(`Cannot reach the service at ${base}: ${(error as Error).message}. Is it running (npm start)?`);
}
const payload = (await response.json()) as { data?: unknown; error?: { code: string; message: string; details?: unknown } };
if (values.json) {
  console.log(JSON.stringify(payload, null, 2));
} else if (payload.error) {
  console.error(`${payload.error.code}: ${payload.error.message}${payload.error.details ? ` ${JSON.stringify(payload.error.details)}` : ''}`);
} else if (command === 'key:create') {
  const key = payload.data as { key: string; keyId: string; scopes: string[]; expiresAt: string | null };
  console.log(`Created key ${key.keyId} (scopes ${key.scopes.join(', ')}; ${key.expiresAt ? `expires ${key.expiresAt}` : 'never expires'}).`);
  console.log(`Secret, shown once: ${key.key}`);
} else {
  console.log(JSON.stringify(payload.data, null, 2));
}
process.exit(response.ok ? 0 : 1);

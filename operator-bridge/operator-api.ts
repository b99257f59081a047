import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { z } from 'zod';
import { IdentityError } from '../adapters/identity/identity-error.ts';
import type { FoundPerson, IdentityStore } from '../adapters/identity/identity-store.ts';
import { defaultKeyExpiry } from '../adapters/identity/identity-store.ts';
import { invalidScopes } from '../adapters/identity/scopes.ts';
import { envelopeOfError, errorEnvelope, type EnvelopeResponse } from '../schema/operation-envelope.ts';
import { toCatalogueError } from '../schema/pipeline/error-mapping.ts';
import { idempotent, requestHash } from '../schema/pipeline/idempotency.ts';
import type { IdempotencyStore } from '../adapters/db/idempotency-store.ts';
import type { OperatorAudit } from '../adapters/db/operator-audit.ts';
import { validationFailure } from '../schema/builder.ts';
import { ServiceError } from '../core/error-catalogue.ts';

/** One operator route: method, path pattern, input schema and handler. */
export interface OperatorRoute {
  method: 'GET' | 'POST';
  pattern: RegExp;
  input: z.ZodType;
  run: (input: never, params: string[]) => Promise<{ status?: number; data: unknown } | null>;
  /** A field of the answer's `data` shown once (a new key): never kept for an Idempotency-Key replay. */
  oneTimeSecret?: string;
}

const CreateWorkspace = z
  .strictObject({
    name: z.string().min(1).max(120),
    ownerEmail: z.email().optional(),
    /**
     * The owner is a person who already exists. Sign-up does not verify emails, so anyone may hold a customer's
     * address: an existing person becomes owner only when the operator, having checked them, says so.
     */
    existingOwner: z.boolean().default(false),
  })
  .refine((input) => !input.existingOwner || input.ownerEmail !== undefined, { message: "needs ownerEmail, the existing person's email", path: ['existingOwner'] });

const CreateKey = z.strictObject({
  workspaceId: z.uuid(),
  scopes: z.array(z.string()).min(1),
  label: z.enum(['live', 'test']).default('live'),
  name: z.string().min(1).max(120).optional(),
  /** Days until expiry (default 90); `null` for a key that never expires. */
  expiresInDays: z.number().int().min(1).max(3650).nullable().default(90),
});

/**
 * The person a new workspace goes to: the one holding `email` when the operator said `existingOwner`, else a new
 * person. Refused either way round, so a workspace never goes to someone the operator did not mean.
 */
async function ownerOf(identity: IdentityStore, email: string, existingOwner: boolean): Promise<{ id: string; existed: boolean }> {
  const found = await identity.getPersonByEmail(email);
  if (existingOwner) {
    if (!found) {
      throw new ServiceError('not_found', {
        message: `No person has the email ${email}: leave out existingOwner (--existing-owner) to create them.`,
        details: { field: 'ownerEmail' },
      });
    }
    return { id: found.id, existed: true };
  }
  if (found) throw ownerExists(found);
  try {
    return { id: (await identity.createPerson({ email, name: email })).id, existed: false };
  } catch (error) {
    // They signed up between the look-up and the insert.
    const raced = error instanceof IdentityError && error.kind === 'duplicate_email' ? await identity.getPersonByEmail(email) : null;
    throw raced ? ownerExists(raced) : error;
  }
}

/** The refusal that tells the operator who already holds the email, so they can check it is their customer. */
function ownerExists(person: FoundPerson): ServiceError {
  const since = person.createdAt.toISOString();
  const who = person.hasPassword ? `signed up on ${since}` : `was made by an operator on ${since} and has no password`;
  return new ServiceError('conflict', {
    message:
      `A person with the email ${person.email} already exists (${who}); sign-up does not verify emails, so check they are ` +
      'your customer, then send existingOwner: true (npm run admin -- workspace:create … --existing-owner) to make them the owner.',
    details: { field: 'existingOwner', reason: 'owner_exists', personId: person.id, personCreatedAt: since, hasPassword: person.hasPassword },
  });
}

export function identityOperatorRoutes(identity: IdentityStore, now: () => Date): OperatorRoute[] {
  return [
    {
      method: 'POST',
      pattern: /^\/operator\/workspaces$/,
      input: CreateWorkspace,
      run: async (input: z.infer<typeof CreateWorkspace>) => {
        const owner = input.ownerEmail === undefined ? undefined : await ownerOf(identity, input.ownerEmail, input.existingOwner);
        const workspace = await identity.createWorkspace({ name: input.name, ownerPersonId: owner?.id });
        return { status: 201, data: { ...workspace, ownerExisted: owner?.existed ?? null } };
      },
    },
    {
      method: 'POST',
      pattern: /^\/operator\/keys$/,
      input: CreateKey,
      oneTimeSecret: 'key',
      run: async (input: z.infer<typeof CreateKey>) => {
        const unknown = invalidScopes(input.scopes);
        if (unknown.length) throw validationFailure([{ message: `unknown scope(s): ${unknown.join(', ')}`, path: ['scopes'] }]);
        if (!(await identity.getWorkspace(input.workspaceId))) return null;
        const created = await identity.createApiKey({
          workspaceId: input.workspaceId,
          label: input.label,
          scopes: input.scopes,
          name: input.name,
          expiresAt: input.expiresInDays === null ? null : defaultKeyExpiry(now(), input.expiresInDays),
        });
        return { status: 201, data: created };
      },
    },
    {
      method: 'POST',
      pattern: /^\/operator\/keys\/([0-9a-f-]{36})\/revoke$/,
      input: z.undefined().or(z.strictObject({})),
      run: async (_input: unknown, [keyId]) => {
        const key = await identity.revokeApiKey(keyId, now());
        return key ? { data: key } : null;
      },
    },
    {
      method: 'GET',
      pattern: /^\/operator\/workspaces\/([0-9a-f-]{36})\/keys$/,
      input: z.undefined(),
      run: async (_input: unknown, [workspaceId]) => {
        if (!(await identity.getWorkspace(workspaceId))) return null;
        return { data: await identity.listKeys(workspaceId) };
      },
    },
  ];
}

/**
 * The operator-only API under `/operator/`, used by `npm run admin`. It is not part of the public catalogue:
 * it authenticates with the operator token, never with an API key.
 */
/** Who made an operator call: the token's fingerprint (never the token) and the address it came from. */
function actorOf(req: IncomingMessage, token: string): string {
  return `token:${createHash('sha256').update(token).digest('hex').slice(0, 12)} from ${req.socket.remoteAddress ?? 'unknown'}`;
}

/** The workspace an action is about: in its path, or in its body (key creation). */
function workspaceOf(path: string, input: unknown): string | null {
  const inPath = /^\/operator\/workspaces\/([0-9a-f-]{36})\//.exec(path)?.[1];
  const inBody = typeof input === 'object' && input !== null ? (input as { workspaceId?: unknown }).workspaceId : undefined;
  return inPath ?? (typeof inBody === 'string' ? inBody : null);
}

export function createOperatorApi(routes: OperatorRoute[], tokenMatches: (candidate: string) => boolean, idempotency: IdempotencyStore, audit: OperatorAudit) {
  const auditRoute: OperatorRoute = {
    method: 'GET',
    pattern: /^\/operator\/audit$/,
    input: z.undefined(),
    run: async () => ({ data: await audit.list(500) }),
  };
  routes = [...routes, auditRoute];
  return async (req: IncomingMessage, body: string, requestId: string): Promise<EnvelopeResponse> => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const candidate = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!candidate || !tokenMatches(candidate)) {
      return errorEnvelope(requestId, 'unauthenticated', 'The operator API needs `Authorization: Bearer <operator token>`.');
    }
    const candidates = routes.filter((route) => route.pattern.test(url.pathname));
    if (!candidates.length) return errorEnvelope(requestId, 'not_found', `No operator route at ${url.pathname}.`);
    const route = candidates.find((r) => r.method === req.method);
    if (!route) return { ...errorEnvelope(requestId, 'method_not_allowed'), headers: { allow: candidates.map((r) => r.method).join(', ') } };
    let raw: unknown;
    try {
      raw = body.length ? JSON.parse(body) : undefined;
    } catch {
      return errorEnvelope(requestId, 'invalid_json', undefined, { field: 'body' });
    }
    const parsed = route.input.safeParse(raw);
    if (!parsed.success) {
      const failure = validationFailure(parsed.error.issues);
      return errorEnvelope(requestId, 'invalid_request', failure.message, failure.extensions.details);
    }
    const params = route.pattern.exec(url.pathname)!.slice(1);
    const run = async (): Promise<EnvelopeResponse> => {
      try {
        const result = await route.run(parsed.data as never, params);
        if (!result) return errorEnvelope(requestId, 'not_found');
        return { status: result.status ?? 200, headers: {}, isError: false, body: { data: result.data, meta: { requestId } } };
      } catch (error) {
        return envelopeOfError(requestId, toCatalogueError(error));
      }
    };
    if (req.method === 'GET') return run();
    // A retried purchase or refund is answered, never booked twice.
    const key = req.headers['idempotency-key'];
    const response =
      typeof key === 'string' ? await idempotent(idempotency, { scope: 'operator', key, hash: requestHash(req.method ?? 'POST', url.pathname, parsed.data), requestId, oneTimeSecret: route.oneTimeSecret }, run) : await run();
    // Every action is on the record, refused ones included, with who made it; a replayed answer did nothing new.
    if (response.headers['idempotent-replayed'] !== 'true') {
      await audit.record({
        actor: actorOf(req, candidate),
        action: `${req.method} ${url.pathname.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, ':id')}`,
        workspaceId: workspaceOf(url.pathname, parsed.data),
        status: response.status,
        requestId,
        details: { path: url.pathname, input: parsed.data ?? null },
      });
    }
    return response;
  };
}

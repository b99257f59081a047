import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRng, type Rng } from './rng.ts';

export interface FaultRule {
  /** A path prefix (`/api/info`), or a regular expression written `/…/` (`/^\/comments\//`). */
  route: string;
  /**
   * `garbage`: a 200 whose body is not the platform's format (an HTML error page, a changed API). `answer`: a
   * recorded answer the simulation does not produce by itself (`body`, with `status`, default 200).
   */
  kind: 'latency' | 'status' | 'rate_limit' | 'timeout' | 'reset' | 'garbage' | 'answer';
  /** Chance that a matching request is hit; default 1. */
  probability?: number;
  /** Hit only the next N matching requests, then the rule retires; default unlimited. */
  count?: number;
  latencyMs?: number;
  /** For `status` (default 503) and `answer` (default 200). */
  status?: number;
  /** For `answer`: the JSON body sent. */
  body?: unknown;
  /** For `rate_limit`; default 1. */
  retryAfterSeconds?: number;
}

interface ActiveRule {
  id: string;
  rule: FaultRule;
  matches: (path: string) => boolean;
  remaining: number;
}

/** Per-route fault rules for a simulated platform. Seeded, so probabilistic faults replay identically. */
export class FaultInjector {
  private rules: ActiveRule[] = [];
  private nextId = 1;
  private readonly rng: Rng;

  constructor(seed = 1) {
    this.rng = createRng(seed);
  }

  add(rule: FaultRule): string {
    const id = `fault-${this.nextId++}`;
    this.rules.push({ id, rule, matches: compileRoute(rule.route), remaining: rule.count ?? Number.POSITIVE_INFINITY });
    return id;
  }

  clear(): void {
    this.rules = [];
  }

  /** Finds the first rule hitting this request and consumes one of its `count`. Method is accepted for symmetry with routing; rules apply to every method. */
  match(_method: string, path: string): FaultRule | undefined {
    for (const active of this.rules) {
      if (!active.matches(path)) continue;
      if (active.rule.probability !== undefined && !this.rng.chance(active.rule.probability)) continue;
      active.remaining -= 1;
      if (active.remaining <= 0) this.rules = this.rules.filter((r) => r !== active);
      return active.rule;
    }
    return undefined;
  }
}

function compileRoute(route: string): (path: string) => boolean {
  const regex = /^\/(.+)\/([gimsuy]*)$/.exec(route);
  if (regex && /[\\^$*+?()[\]{}|]/.test(regex[1])) {
    const pattern = new RegExp(regex[1], regex[2]);
    return (path) => pattern.test(path);
  }
  return (path) => path.startsWith(route);
}

/** Applies a fault to a node:http exchange; `continue` lets the request reach the platform handler. */
export async function applyFault(rule: FaultRule, req: IncomingMessage, res: ServerResponse): Promise<'continue' | 'handled'> {
  switch (rule.kind) {
    case 'latency':
      await new Promise((resolve) => setTimeout(resolve, rule.latencyMs ?? 1000));
      return 'continue';
    case 'status': {
      const status = rule.status ?? 503;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: 'Injected fault', error: status }));
      return 'handled';
    }
    case 'rate_limit':
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': String(rule.retryAfterSeconds ?? 1) });
      res.end(JSON.stringify({ message: 'Too Many Requests', error: 429 }));
      return 'handled';
    case 'timeout':
      // Never answer: the client's own timeout must fire. The server's close() destroys the socket.
      req.resume();
      return 'handled';
    case 'reset':
      req.socket.destroy();
      return 'handled';
    case 'garbage':
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>We changed things.</body></html>');
      return 'handled';
    case 'answer':
      res.writeHead(rule.status ?? 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(rule.body ?? null));
      return 'handled';
  }
}

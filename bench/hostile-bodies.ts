import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { spawnService } from './processes.ts';

/**
 * CPU the service's process spends per request carrying a hostile 1 MB JSON body (docs/api-conventions.md
 * "Requests"): nested 499,000 deep, an object of 60,000 keys, and a flat string as the reference, sent without a
 * key and with the demo key to /v1 and /graphql. `node bench/hostile-bodies.ts [root]`: `root` is another checkout
 * (the code before a change), measured in the same run first.
 */
const CALLS = 40;
const QUERY = '{"query":"{ health { status } }","x":';
const BODIES = {
  deep: `${QUERY}${'['.repeat(499_000)}${']'.repeat(499_000)}}`,
  wide: `${QUERY}{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":1`).join(',')}}}`,
  flat: `${QUERY}"${'a'.repeat(1_000_000)}"}`,
};
const TICKS_PER_SECOND = 100;

function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function post(base: URL, path: string, body: Buffer, key: string | undefined): Promise<number> {
  return new Promise((resolve, reject) => {
    const headers = { 'content-type': 'application/json', 'content-length': body.length, ...(key ? { authorization: `Bearer ${key}` } : {}) };
    const req = request({ host: base.hostname, port: base.port, path, method: 'POST', headers }, (res) => {
      res.resume().on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject).end(body);
  });
}

async function measure(root: string | undefined): Promise<Record<string, unknown>[]> {
  const service = await spawnService({ root });
  const base = new URL(service.url);
  const rows: Record<string, unknown>[] = [];
  try {
    for (const [name, text] of Object.entries(BODIES)) {
      const body = Buffer.from(text);
      for (const [path, key] of [['/v1/forum/search', undefined], ['/graphql', undefined], ['/graphql', service.key], ['/v1/forum/search', service.key]] as const) {
        await post(base, path, body, key);
        const before = cpuSeconds(service.pid);
        let status = 0;
        for (let call = 0; call < CALLS; call++) status = await post(base, path, body, key);
        rows.push({ code: root ?? 'this', body: name, path, key: key ? 'valid' : 'none', status, cpuMsPerCall: Math.round(((cpuSeconds(service.pid) - before) * 1000) / CALLS) });
      }
    }
  } finally {
    await service.stop();
  }
  return rows;
}

const other = process.argv[2];
console.table([...(other ? await measure(other) : []), ...(await measure(undefined))]);

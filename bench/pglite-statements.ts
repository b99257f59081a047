import { renameSync, writeFileSync } from 'node:fs';
import { BroadcastChannel, isMainThread } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

/**
 * Preloaded into the service by bench/profile-read.ts on the embedded default (`--import`), so into each of its
 * threads: counts the statements PGlite runs, by their SQL, and the CPU of PGlite's thread (the embedded database's
 * worker) spent inside PGlite's synchronous protocol call (`execProtocolRawSync`, where the WASM database does its
 * work, file writes included). SIGUSR2 writes the counts since the last signal to PGLITE_STATEMENTS_OUT as JSON and
 * starts again. Bench only: it wraps a method of the PGlite class in this process.
 */
interface Counted {
  statements: number;
  exchanges: number;
  cpuUs: number;
}

const counts = new Map<string, Counted>();
const decoder = new TextDecoder();
let current = '(none)';
const threadCpuUs = () => {
  const { user, system } = process.threadCpuUsage();
  return user + system;
};
let since = threadCpuUs();

/** The SQL of a Query ('Q') or Parse ('P') message among the frontend messages sent, if any. */
function sqlOf(bytes: Uint8Array): string | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + 5 <= bytes.length; ) {
    const type = bytes[at]!;
    const length = view.getInt32(at + 1);
    const body = bytes.subarray(at + 5, at + 1 + length);
    if (type === 0x51) return decoder.decode(body.subarray(0, body.indexOf(0)));
    if (type === 0x50) {
      const start = body.indexOf(0) + 1;
      return decoder.decode(body.subarray(start, body.indexOf(0, start)));
    }
    at += 1 + length;
  }
  return undefined;
}

const original = PGlite.prototype.execProtocolRawSync;
PGlite.prototype.execProtocolRawSync = function (this: PGlite, message: Uint8Array) {
  const sql = sqlOf(message);
  // A statement's later exchanges (bind, execute, sync) carry no SQL: they count towards the last one parsed.
  if (sql !== undefined) current = sql.replace(/\s+/g, ' ').trim().slice(0, 100);
  const started = threadCpuUs();
  try {
    return original.call(this, message);
  } finally {
    let counted = counts.get(current);
    if (!counted) counts.set(current, (counted = { statements: 0, exchanges: 0, cpuUs: 0 }));
    counted.exchanges++;
    if (sql !== undefined) counted.statements++;
    counted.cpuUs += threadCpuUs() - started;
  }
};

/** Signals reach the main thread only; it passes them on to the worker, where PGlite runs and is counted. */
const signals = new BroadcastChannel('bench-pglite-statements');
signals.unref();
if (isMainThread) process.on('SIGUSR2', () => signals.postMessage('write'));
else signals.onmessage = () => write();

function write(): void {
  const rows = [...counts].map(([sql, counted]) => ({ sql, ...counted, cpuUs: Math.round(counted.cpuUs) })).sort((a, b) => b.cpuUs - a.cpuUs);
  // Written whole, then renamed, so the reader never sees half of it.
  const out = process.env.PGLITE_STATEMENTS_OUT!;
  writeFileSync(`${out}.part`, JSON.stringify({ threadCpuUs: Math.round(threadCpuUs() - since), rows }));
  renameSync(`${out}.part`, out);
  counts.clear();
  since = threadCpuUs();
}

import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * Where a target's CPU went while it was loaded (Linux `/proc`; elsewhere nothing is recorded): the measured
 * process's own CPU per call, the simulated platform's, and how busy the whole machine was. On a machine whose load
 * generator, platforms, database and service share the cores, these say which bound a ratio hit: one process's
 * busiest thread (its event loop; one core at most), or the machine (busy near 100 %).
 */
export interface CpuUse {
  /** CPU (user + system) of the measured processes, summed, per call. */
  ownUsPerCall: number;
  /**
   * CPU of each measured process's busiest thread, summed, per call: what one core bounds. On PGlite the service has
   * two busy threads (the event loop and the embedded database's worker), which its whole CPU adds together.
   */
  busiestThreadUsPerCall: number;
  /** That thread's name (node names its threads: `MainThread` is the event loop, a worker is named by the service). */
  busiestThread: string;
  /** CPU of the simulated platforms' process per call, when the target calls them. */
  upstreamUsPerCall?: number;
  /** CPU of every process on the machine per call (the load generator, PostgreSQL and other work included). */
  machineUsPerCall: number;
  /** Share of all cores busy over the measured seconds. */
  machineBusy: number;
  cores: number;
}

interface Reading {
  own: number;
  /** Per measured process, each thread's CPU seconds and name, by thread id. */
  threads: Array<Map<string, { seconds: number; name: string }>>;
  upstream?: number;
  machineBusy: number;
  machineTotal: number;
}

const TICKS_PER_SECOND = 100;

/** User + system seconds from a process's or thread's `stat` file. */
function statSeconds(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function processSeconds(pid: number): number {
  return statSeconds(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

function threadSeconds(pid: number): Map<string, { seconds: number; name: string }> {
  const threads = new Map<string, { seconds: number; name: string }>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // the thread ended between the listing and the read
    }
    threads.set(tid, { seconds: statSeconds(stat), name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')) });
  }
  return threads;
}

/** Each measured process's busiest thread over the interval (a thread started meanwhile counts all its CPU). */
function busiestThreads(before: Reading, after: Reading): Array<{ seconds: number; name: string }> {
  return after.threads.map((threads, index) => {
    let busiest = { seconds: 0, name: '' };
    for (const [tid, thread] of threads) {
      const seconds = thread.seconds - (before.threads[index]!.get(tid)?.seconds ?? 0);
      if (seconds > busiest.seconds) busiest = { seconds, name: thread.name };
    }
    return busiest;
  });
}

/** Busy and total seconds of all cores together, from the first line of /proc/stat. */
function machineSeconds(): { busy: number; total: number } {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!.trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal …: idle and iowait are the idle ones.
  const total = ticks.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = ticks[3]! + ticks[4]!;
  return { busy: (total - idle) / TICKS_PER_SECOND, total: total / TICKS_PER_SECOND };
}

function read(own: readonly number[], upstream: number | undefined): Reading | undefined {
  try {
    const machine = machineSeconds();
    return {
      own: own.reduce((sum, pid) => sum + processSeconds(pid), 0),
      threads: own.map(threadSeconds),
      upstream: upstream === undefined ? undefined : processSeconds(upstream),
      machineBusy: machine.busy,
      machineTotal: machine.total,
    };
  } catch {
    return undefined;
  }
}

/** Reads the counters now; the returned function reads them again and divides by the calls served in between. */
export function startCpuWatch(own: readonly number[], upstream?: number): (calls: number) => CpuUse | undefined {
  const before = read(own, upstream);
  return (calls) => {
    const after = read(own, upstream);
    if (!before || !after || calls <= 0) return undefined;
    const perCall = (seconds: number) => Number(((seconds * 1e6) / calls).toFixed(1));
    const busy = after.machineBusy - before.machineBusy;
    const threads = busiestThreads(before, after);
    const busiest = threads.reduce((top, thread) => (thread.seconds > top.seconds ? thread : top));
    return {
      ownUsPerCall: perCall(after.own - before.own),
      busiestThreadUsPerCall: perCall(threads.reduce((sum, thread) => sum + thread.seconds, 0)),
      busiestThread: busiest.name,
      ...(before.upstream !== undefined && after.upstream !== undefined ? { upstreamUsPerCall: perCall(after.upstream - before.upstream) } : {}),
      machineUsPerCall: perCall(busy),
      machineBusy: Number((busy / (after.machineTotal - before.machineTotal)).toFixed(3)),
      cores: availableParallelism(),
    };
  };
}

/** A process's resident set now, in MB (VmRSS from /proc; undefined once it has ended or off Linux). */
export function rssMb(pid: number): number | undefined {
  try {
    const kb = /^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Math.round(Number(kb) / 1024);
  } catch {
    return undefined;
  }
}

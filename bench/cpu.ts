import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';

/**
 * Where a target's CPU went while it was loaded (Linux `/proc`; elsewhere nothing is recorded): the measured
 * process's own CPU per call, the simulated platform's, and how busy the whole machine was. On a machine whose load
 * generator, platforms, database and service share the cores, these say which bound a ratio hit: one process's
 * thread (its CPU per call), or the machine (busy near 100 %).
 */
export interface CpuUse {
  /** CPU (user + system) of the measured processes, summed, per call. */
  ownUsPerCall: number;
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
  upstream?: number;
  machineBusy: number;
  machineTotal: number;
}

const TICKS_PER_SECOND = 100;

function processSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
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
    return {
      ownUsPerCall: perCall(after.own - before.own),
      ...(before.upstream !== undefined && after.upstream !== undefined ? { upstreamUsPerCall: perCall(after.upstream - before.upstream) } : {}),
      machineUsPerCall: perCall(busy),
      machineBusy: Number((busy / (after.machineTotal - before.machineTotal)).toFixed(3)),
      cores: availableParallelism(),
    };
  };
}

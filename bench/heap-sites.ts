import { fileURLToPath } from 'node:url';

/**
 * Groups a V8 sampling heap profile (the inspector's `HeapProfiler.stopSampling`, taken with the objects later
 * collected included) into bytes allocated per call, three ways: by the allocating function itself; by the innermost
 * frame of this project's own code on the stack (so what a library allocates on our behalf is charged to the line of
 * ours that asked for it); and by package (node_modules/<name>, node's internals, ours).
 */
interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

export interface SamplingHeapProfileNode {
  callFrame: CallFrame;
  selfSize: number;
  children: SamplingHeapProfileNode[];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const relative = (url: string) => url.replace(/^file:\/\//, '').replace(ROOT, '');
const site = (frame: CallFrame) => `${frame.functionName || '(anonymous)'} ${relative(frame.url) || '(native)'}:${frame.lineNumber + 1}`;
const ours = (frame: CallFrame) => frame.url.startsWith('file://') && !frame.url.includes('/node_modules/') && !frame.url.includes('/bench/');

function packageOf(frame: CallFrame): string {
  const inModules = /\/node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(frame.url);
  if (inModules) return inModules[1]!;
  if (frame.url.startsWith('node:')) return 'node internals';
  if (ours(frame)) return 'this project';
  return '(V8, native, GC roots)';
}

export interface AllocationSites {
  totalBytesPerCall: number;
  bySelf: Array<[string, number]>;
  byOurCaller: Array<[string, number]>;
  byPackage: Array<[string, number]>;
}

export function allocationSites(head: SamplingHeapProfileNode, calls: number): AllocationSites {
  const bySelf = new Map<string, number>();
  const byOurCaller = new Map<string, number>();
  const byPackage = new Map<string, number>();
  const add = (map: Map<string, number>, key: string, bytes: number) => map.set(key, (map.get(key) ?? 0) + bytes);
  let total = 0;
  const walk = (node: SamplingHeapProfileNode, ourCaller: string) => {
    const caller = ours(node.callFrame) ? site(node.callFrame) : ourCaller;
    if (node.selfSize > 0) {
      total += node.selfSize;
      add(bySelf, site(node.callFrame), node.selfSize);
      add(byOurCaller, caller, node.selfSize);
      add(byPackage, packageOf(node.callFrame), node.selfSize);
    }
    for (const child of node.children) walk(child, caller);
  };
  walk(head, '(no frame of ours on the stack)');
  const perCall = (map: Map<string, number>) => [...map].map(([key, bytes]): [string, number] => [key, bytes / calls]).sort((a, b) => b[1] - a[1]);
  return { totalBytesPerCall: total / calls, bySelf: perCall(bySelf), byOurCaller: perCall(byOurCaller), byPackage: perCall(byPackage) };
}

export function printAllocationSites(sites: AllocationSites, top = 20): void {
  const rows = (entries: Array<[string, number]>) => entries.slice(0, top).map(([key, bytes]) => `  ${bytes.toFixed(0).padStart(7)} B/call  ${((100 * bytes) / sites.totalBytesPerCall).toFixed(1).padStart(5)} %  ${key}`);
  console.log(`allocated per call (sampled, collected objects included): ${(sites.totalBytesPerCall / 1024).toFixed(1)} KB`);
  console.log(`by package:\n${rows(sites.byPackage).join('\n')}`);
  console.log(`by allocating function (top ${top}):\n${rows(sites.bySelf).join('\n')}`);
  console.log(`by the innermost frame of this project's code on the stack (top ${top}):\n${rows(sites.byOurCaller).join('\n')}`);
}

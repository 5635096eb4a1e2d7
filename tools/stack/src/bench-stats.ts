import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

/** The sample at quantile `q` (0–1) of `samples` (nearest rank). */
export function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** "p50 … ms · p95 … ms · n=…" of latency samples in milliseconds. */
export function summary(samples: readonly number[]): string {
  return `p50 ${quantile(samples, 0.5).toFixed(2)} ms · p95 ${quantile(samples, 0.95).toFixed(2)} ms · n=${samples.length}`;
}

/** A process of the machine, as /proc tells it: its parent, CPU ticks so far (user + system) and command line. */
export interface ProcessInfo {
  ppid: number;
  ticks: number;
  command: string;
}

/** Every process of the machine now. */
export function readProcesses(): Map<number, ProcessInfo> {
  const table = new Map<number, ProcessInfo>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after "(comm)": state ppid … utime (14th field of the line) stime (15th).
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const command = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      table.set(Number(entry), { ppid: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]), command });
    } catch {
      // The process ended while we looked.
    }
  }
  return table;
}

/** What a process of the stack is, or undefined for processes the split leaves out. */
function labelOf(pid: number, info: ProcessInfo, descendants: Set<number>, postgresDatabase: string | undefined): string | undefined {
  if (postgresDatabase && info.command.startsWith('postgres: ') && info.command.split(' ').includes(postgresDatabase)) return 'datastore: PostgreSQL backends';
  if (/^redis-server\b/.test(info.command)) return "redis (the machine's server)";
  if (!descendants.has(pid)) return undefined;
  const service = /services\/(\w+)\/dist\/main\.js/.exec(info.command);
  if (service) return service[1];
  if (/ferretdb/.test(info.command)) return 'datastore: FerretDB';
  if (/\bmongod\b/.test(info.command)) return 'datastore: mongod';
  if (/stack\/dist\/start\.js/.test(info.command)) return 'supervisor (npm start)';
  return undefined;
}

/** CPU ticks per label for the stack's processes (descendants of this one) and the datastore's. */
function stackTicks(postgresDatabase: string | undefined): Map<string, number> {
  const table = readProcesses();
  const descendants = new Set<number>();
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, info] of table) {
      if (!descendants.has(pid) && (info.ppid === process.pid || descendants.has(info.ppid))) grew = descendants.add(pid) !== undefined;
    }
  }
  const ticks = new Map<string, number>();
  for (const [pid, info] of table) {
    const label = labelOf(pid, info, descendants, postgresDatabase);
    if (label) ticks.set(label, (ticks.get(label) ?? 0) + info.ticks);
  }
  return ticks;
}

function clockTicksPerSecond(): number {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
}

/**
 * Starts counting CPU; the returned function gives each of the stack's processes' share of one
 * core since (and the load generator's, this process), busiest first, over `seconds`.
 */
export function cpuShares(postgresDatabase: string | undefined): () => { seconds: number; shares: Array<readonly [string, number]> } {
  const before = stackTicks(postgresDatabase);
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  return () => {
    const seconds = (performance.now() - started) / 1000;
    const perSecond = clockTicksPerSecond();
    const own = process.cpuUsage(ownBefore);
    const shares = [...stackTicks(postgresDatabase)].map(([label, ticks]) => [label, (ticks - (before.get(label) ?? 0)) / perSecond / seconds] as const);
    shares.push(['load generator', (own.user + own.system) / 1e6 / seconds]);
    return { seconds, shares: shares.sort((a, b) => b[1] - a[1]) };
  };
}

import { readdirSync, readFileSync } from 'node:fs';

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

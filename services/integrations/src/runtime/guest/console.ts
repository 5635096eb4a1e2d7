/**
 * Guest side. `console`, whose lines go to the run's log (host-bridge.ts keeps them, bounded).
 * Formatting happens here, in the script's CPU and memory budget, and is cut to the line length
 * the host keeps before it crosses the boundary.
 */
import { describeError, host, json } from './host';

function show(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'function':
      return `[Function ${value.name || '(anonymous)'}]`;
    case 'bigint':
      return `${value}n`;
    case 'undefined':
    case 'symbol':
      return String(value);
  }
  if (value instanceof Error) return describeError(value);
  try {
    return json.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${item}n` : item)) ?? String(value);
  } catch {
    return String(value); // cycles
  }
}

let open = true;

function write(level: string, args: unknown[]): void {
  if (!open) return;
  const line = args.map(show).join(' ');
  open = host.log(level, line.length > host.maxLogLineLength ? line.slice(0, host.maxLogLineLength) : line);
}

const method =
  (level: string) =>
  (...args: unknown[]): void =>
    write(level, args);

Object.assign(globalThis, {
  console: {
    log: method('info'),
    info: method('info'),
    debug: method('debug'),
    trace: method('debug'),
    warn: method('warn'),
    error: method('error'),
    assert(condition: unknown, ...args: unknown[]) {
      if (!condition) write('error', ['Assertion failed', ...args]);
    },
  },
});

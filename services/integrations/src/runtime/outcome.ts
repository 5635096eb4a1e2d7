import type { RunResult } from './types';

/** How a run ended: it answered (whatever its status), it failed, or it reached its time (CPU or wall-clock) or memory limit. */
export type RunOutcome = 'ok' | 'error' | 'timeout' | 'memory';

/** How `result`'s run ended: a limit reached leads its error (sandbox.ts, host-bridge.ts, pool.ts, run.ts). */
export function runOutcome(result: Pick<RunResult, 'response' | 'error'>): RunOutcome {
  if (result.response) return 'ok';
  const error = result.error ?? '';
  if (/^(CPU|wall-clock) time limit exceeded/.test(error)) return 'timeout';
  if (error.startsWith('Memory limit exceeded')) return 'memory';
  return 'error';
}

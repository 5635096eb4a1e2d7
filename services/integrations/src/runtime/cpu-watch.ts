/**
 * What a run's worker tells the main thread, through shared memory, about its time inside
 * QuickJS: since when it has been in there (0: it is not) and how much of its CPU budget was
 * left when it went in. The sandbox's interrupt handler ends an ordinary endless loop, but it
 * is never called while QuickJS works inside one native call (an `Array.prototype.fill` of
 * millions of elements that makes the collector run again and again near the memory limit
 * took 21 s): the worker's own timers cannot fire then either, as its thread is busy. The main
 * thread reads these cells and terminates the worker once one stay overruns what was left.
 *
 * Shared memory, not messages: a worker busy in QuickJS cannot send any.
 */
export type CpuWatchCells = BigInt64Array;

export function newCpuWatch(): CpuWatchCells {
  return new BigInt64Array(new SharedArrayBuffer(2 * BigInt64Array.BYTES_PER_ELEMENT));
}

/** Worker side: entering QuickJS with `budgetLeftMs` of CPU time. */
export function enteredSandbox(cells: CpuWatchCells, budgetLeftMs: number): void {
  Atomics.store(cells, 1, BigInt(Math.max(0, Math.ceil(budgetLeftMs))));
  Atomics.store(cells, 0, BigInt(Date.now()));
}

export function leftSandbox(cells: CpuWatchCells): void {
  Atomics.store(cells, 0, 0n);
}

/** Main side: how far (ms) the current stay in QuickJS went past the budget it had left; 0 when none. */
export function cpuOverrunMs(cells: CpuWatchCells, now = Date.now()): number {
  const since = Number(Atomics.load(cells, 0));
  if (since === 0) return 0;
  return Math.max(0, now - since - Number(Atomics.load(cells, 1)));
}

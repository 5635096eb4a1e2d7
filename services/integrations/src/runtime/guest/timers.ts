/**
 * Guest side. setTimeout/setInterval: the host keeps the clock (host-bridge.ts), bounded by the
 * run; the callbacks stay here, by id, so the host holds no guest function.
 */
import { describeError, host } from './host';

type Callback = (...args: unknown[]) => void;
const timers = new Map<number, { callback: Callback; args: unknown[]; repeatMs?: number }>();
let nextId = 1;

function schedule(callback: unknown, delay: unknown, args: unknown[], repeat: boolean): number {
  if (typeof callback !== 'function') throw new TypeError('The callback must be a function.');
  const ms = Math.max(0, Number(delay) || 0);
  const id = nextId++;
  host.setTimer(id, ms); // throws past the run's timer limit
  timers.set(id, { callback: callback as Callback, args, repeatMs: repeat ? ms : undefined });
  return id;
}

function cancel(id: unknown): void {
  if (typeof id === 'number' && timers.delete(id)) host.clearTimer(id);
}

/** Called by the host when timer `id` is due. */
export function fireTimer(id: number): void {
  const timer = timers.get(id);
  if (!timer) return;
  if (timer.repeatMs === undefined) timers.delete(id);
  else host.setTimer(id, timer.repeatMs);
  try {
    timer.callback(...timer.args);
  } catch (error) {
    // As in a browser or a Worker: reported, and the rest of the run goes on.
    console.error(`Uncaught (in timer callback) ${describeError(error)}`);
  }
}

Object.assign(globalThis, {
  setTimeout: (callback: unknown, delay?: unknown, ...args: unknown[]) => schedule(callback, delay, args, false),
  setInterval: (callback: unknown, delay?: unknown, ...args: unknown[]) => schedule(callback, delay, args, true),
  clearTimeout: cancel,
  clearInterval: cancel,
});

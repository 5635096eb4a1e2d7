import type { MessagePort } from 'node:worker_threads';
import type { CpuWatchCells } from './cpu-watch';
import type { RunScriptInput } from './types';

/** What the pool (main thread) hands a script worker for one run (worker.ts). */
export interface WorkerTask {
  input: Omit<RunScriptInput, 'hostFetch' | 'cpuWatch'>;
  cpuWatch: CpuWatchCells;
  /** Whether the script's fetch goes anywhere (through `port`); without, fetch rejects. */
  canFetch: boolean;
  /** The run's line to the main thread: its start, and its fetches. */
  port: MessagePort;
}

/** A fetch's answer, as the main thread's hostFetch gave it (its body already bounded there). */
export interface FetchAnswer {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: Uint8Array;
}

/** Worker → main thread. */
export type ToMain =
  | { type: 'started' }
  | { type: 'fetch'; id: number; method: string; url: string; headers: Array<[string, string]>; body?: Uint8Array }
  | { type: 'abort'; id: number };

/** Main thread → worker. */
export type ToWorker = { type: 'answer'; id: number; answer: FetchAnswer } | { type: 'error'; id: number; message: string };

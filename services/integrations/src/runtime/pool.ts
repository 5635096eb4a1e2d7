import { existsSync } from 'node:fs';
import path from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { cpuOverrunMs, newCpuWatch } from './cpu-watch';
import { compileWasm } from './engine';
import { guestBundle } from './guest-bundle';
import { readLimited } from './host-bridge';
import { DEFAULT_LIMITS, type HostFetch, type RunLimits, type RunResult, type RunScriptInput } from './types';
import type { ToMain, ToWorker, WorkerTask } from './worker-protocol';

export interface ScriptPoolOptions {
  /** Worker threads running scripts, kept alive (a terminated one is replaced at once). */
  threads: number;
  /** V8 heap of each worker, MiB (resourceLimits): the script's QuickJS heap is apart, in wasm memory. */
  heapMb: number;
  /** Runs that may wait for a free worker; past it, `run` refuses with ScriptPoolBusyError. */
  maxQueue: number;
}

/** Every worker is busy and the queue is full: the caller answers "busy" (retry later). */
export class ScriptPoolBusyError extends Error {
  constructor() {
    super('Every script worker is busy');
    this.name = 'ScriptPoolBusyError';
  }
}

/**
 * Over a run's own limits, what the main thread allows before it terminates the run's worker:
 * the worker's own timers and the interrupt handler normally end the run first, with its logs.
 */
const OVERRUN_GRACE_MS = 1_000;
/** How often a running run's CPU watch is read. */
const WATCH_EVERY_MS = 100;

/**
 * Guest code runs only in these worker threads: a pool of `threads` workers (piscina), each
 * holding its own QuickJS module; the main thread queues runs, watches them and answers the
 * scripts' fetches. A run that overruns its wall-clock or CPU budget (the latter inside one
 * native call, where QuickJS's interrupt handler is never reached: cpu-watch.ts) has its worker
 * terminated; a worker past its heap limit dies the same way; piscina starts a new one at once,
 * and the run ends as a failed one, never as an error of the service.
 */
export class ScriptPool {
  private piscina?: Promise<Piscina>;
  private inFlight = 0;
  private closed = false;

  constructor(private readonly options: ScriptPoolOptions) {}

  /** Runs `input` on a worker. Throws ScriptPoolBusyError when the queue is full, or when the runtime cannot start at all. */
  async run(input: RunScriptInput): Promise<RunResult> {
    if (this.closed) throw new Error('The script pool is closed');
    if (this.inFlight >= this.options.threads + this.options.maxQueue) throw new ScriptPoolBusyError();
    this.inFlight++;
    try {
      return await this.runOnWorker(input, await this.workers());
    } finally {
      this.inFlight--;
    }
  }

  /** The thread ids of the live workers (tests: a terminated worker is replaced by a new one). */
  async threadIds(): Promise<number[]> {
    return (await this.workers()).threads.map((worker) => worker.threadId);
  }

  async close(): Promise<void> {
    this.closed = true;
    const piscina = await this.piscina?.catch(() => undefined);
    await piscina?.destroy();
  }

  /** The pool, started on first use with the compiled engine and guest bundle every worker shares. */
  private workers(): Promise<Piscina> {
    this.piscina ??= (async () => {
      const [wasmModule, bundle] = await Promise.all([compileWasm(), guestBundle()]);
      return new Piscina({
        filename: workerEntry(),
        minThreads: this.options.threads,
        maxThreads: this.options.threads,
        concurrentTasksPerWorker: 1,
        // Abortable tasks that wait skip piscina's own queue bound: `run` keeps its own.
        maxQueue: this.options.maxQueue,
        resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
        workerData: { wasmModule, guestBundle: bundle },
      });
    })();
    this.piscina.catch(() => (this.piscina = undefined)); // a failure is not remembered
    return this.piscina;
  }

  private async runOnWorker(input: RunScriptInput, piscina: Piscina): Promise<RunResult> {
    const submitted = performance.now();
    const { hostFetch, cpuWatch: _ignored, ...plain } = input;
    const limits: RunLimits = { ...DEFAULT_LIMITS, ...input.limits };
    const cpuWatch = newCpuWatch();
    const { port1, port2 } = new MessageChannel();
    const fetches = new Map<number, AbortController>();
    const terminate = new AbortController();
    let startedAt: number | undefined;
    let stopReason: string | undefined;
    let wallTimer: NodeJS.Timeout | undefined;
    let watch: NodeJS.Timeout | undefined;
    const stop = (reason: string) => {
      stopReason ??= reason;
      terminate.abort(new Error(reason));
    };
    port1.on('message', (message: ToMain) => {
      if (message.type === 'fetch') void answerFetch(port1, message, hostFetch, limits.maxBodyBytes, fetches);
      else if (message.type === 'abort') fetches.get(message.id)?.abort(new Error('the script no longer waits for it'));
      else if (startedAt === undefined) {
        // The budgets count from the start of the run, not from the queue.
        startedAt = performance.now();
        wallTimer = setTimeout(() => stop(`wall-clock time limit exceeded (${limits.wallTimeMs} ms)`), limits.wallTimeMs + OVERRUN_GRACE_MS);
        watch = setInterval(() => {
          if (cpuOverrunMs(cpuWatch) > OVERRUN_GRACE_MS) stop(`CPU time limit exceeded (${limits.cpuTimeMs} ms)`);
        }, WATCH_EVERY_MS);
      }
    });
    const task: WorkerTask = { input: plain, cpuWatch, canFetch: hostFetch !== undefined, port: port2 };
    try {
      return await piscina.run(task, { transferList: [port2 as never], signal: terminate.signal });
    } catch (error) {
      const durationMs = performance.now() - (startedAt ?? submitted);
      if (stopReason) return { logs: [], error: `${stopReason}: the run was ended by stopping its worker thread`, durationMs, cpuMs: durationMs };
      if ((error as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY') {
        return { logs: [], error: `Memory limit exceeded (the worker's heap of ${this.options.heapMb} MiB)`, durationMs, cpuMs: durationMs };
      }
      throw error;
    } finally {
      clearTimeout(wallTimer);
      clearInterval(watch);
      for (const controller of fetches.values()) controller.abort(new Error('the run is over'));
      port1.close();
    }
  }
}

/** Does one fetch of a run's script on this thread (hostFetch holds the egress rules) and sends the answer back. */
async function answerFetch(
  port: MessagePort,
  message: Extract<ToMain, { type: 'fetch' }>,
  hostFetch: HostFetch | undefined,
  maxBodyBytes: number,
  fetches: Map<number, AbortController>,
): Promise<void> {
  const controller = new AbortController();
  fetches.set(message.id, controller);
  const reply = (answer: ToWorker, transfer: ArrayBuffer[] = []) => port.postMessage(answer, transfer);
  try {
    if (!hostFetch) throw new Error('fetch is not available to this script.');
    const request = new Request(message.url, { method: message.method, headers: message.headers, body: message.body, signal: controller.signal });
    const response = await hostFetch(request);
    const body = await readLimited(response, maxBodyBytes);
    const answer = { status: response.status, statusText: response.statusText, headers: [...response.headers], body };
    reply({ type: 'answer', id: message.id, answer }, [body.buffer as ArrayBuffer]);
  } catch (error) {
    reply({ type: 'error', id: message.id, message: error instanceof Error ? error.message : String(error) });
  } finally {
    fetches.delete(message.id);
  }
}

/**
 * The worker's entry, compiled JS: beside this file when it runs from the build (dist), else
 * (jest runs the sources through swc) the build's copy, so the service must be built first.
 */
function workerEntry(): string {
  const compiled = path.join(__dirname, 'worker.js');
  if (existsSync(compiled)) return compiled;
  return path.join(__dirname, '..', '..', 'dist', 'runtime', 'worker.js');
}

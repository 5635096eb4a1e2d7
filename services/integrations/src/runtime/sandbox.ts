import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';
import { enteredSandbox, leftSandbox, type CpuWatchCells } from './cpu-watch';
import { isEngineFault } from './engine';

/** The stop reason of a run that hit its memory limit. */
export const memoryLimitExceeded = (bytes: number) => `Memory limit exceeded (${bytes / 1024 / 1024} MiB)`;

/**
 * One QuickJS runtime and context, used by one run and then thrown away: nothing a script
 * leaves behind (globals, prototypes it patched, pending jobs) can reach the next run.
 *
 * Limits:
 * - memory: the runtime's malloc limit; past it QuickJS throws `InternalError: out of memory`.
 * - CPU: time spent inside QuickJS is added up over every entry (`enter`); the interrupt handler
 *   stops execution once the budget is gone. QuickJS makes that interruption uncatchable, and
 *   the handler keeps answering "stop" for the rest of the run.
 * - stack: QuickJS counts its own (emscripten) stack, but its wasm frames also use the host's
 *   native stack, which is only ~1 MB in node: deep recursion inside the engine itself (parser,
 *   JSON) can exhaust the host stack first. The small QuickJS limit catches ordinary recursion;
 *   the rest surfaces as an engine fault (engine.ts), which ends the run and replaces the module.
 *
 * With `cpuWatch`, each stay inside QuickJS is published for the main thread (cpu-watch.ts),
 * which ends the worker when the interrupt handler cannot.
 */
export class Sandbox {
  readonly runtime: QuickJSRuntime;
  readonly context: QuickJSContext;

  /** Why the run must stop, once a limit was hit or the engine faulted; set once. */
  stopReason?: string;
  /** The engine faulted: the module must not be used again. */
  faulted = false;

  private cpuBudgetMs: number;
  private cpuUsedMs = 0;
  private enteredAt?: number;
  private readonly handles = new Set<QuickJSHandle>();

  constructor(
    readonly engine: QuickJSWASMModule,
    limits: { memoryBytes: number; stackBytes: number; cpuTimeMs: number },
    private readonly cpuWatch?: CpuWatchCells,
  ) {
    this.cpuBudgetMs = limits.cpuTimeMs;
    this.runtime = engine.newRuntime();
    this.runtime.setMemoryLimit(limits.memoryBytes);
    this.runtime.setMaxStackSize(limits.stackBytes);
    this.runtime.setInterruptHandler(() => {
      if (this.enteredAt === undefined || this.stopReason) return this.stopReason !== undefined;
      if (this.cpuUsedMs + (performance.now() - this.enteredAt) <= this.cpuBudgetMs) return false;
      this.stop(`CPU time limit exceeded (${this.cpuBudgetMs} ms)`);
      return true;
    });
    // No module loader: `import` of anything fails inside the sandbox ("could not load module").
    this.context = this.runtime.newContext();
  }

  /** CPU time the run has spent inside QuickJS since its budget last started. */
  get cpuUsed(): number {
    return this.cpuUsedMs;
  }

  /** Starts a new CPU budget (the run's own, after the setup that is not the script's doing). */
  resetCpu(budgetMs: number): void {
    this.cpuBudgetMs = budgetMs;
    this.cpuUsedMs = 0;
  }

  stop(reason: string): void {
    this.stopReason ??= reason;
  }

  /**
   * Runs `fn`, which calls into QuickJS, counting its time against the CPU budget, then runs
   * the promise jobs it queued (async functions resume there). An engine fault is turned
   * into a stop; the caller sees `undefined` then.
   */
  enter<T>(fn: () => T): T | undefined {
    if (this.faulted) return undefined;
    const nested = this.enteredAt !== undefined;
    if (!nested) {
      this.enteredAt = performance.now();
      if (this.cpuWatch) enteredSandbox(this.cpuWatch, this.cpuBudgetMs - this.cpuUsedMs);
    }
    try {
      const value = fn();
      if (!nested) this.drainJobs();
      return value;
    } catch (error) {
      if (!isEngineFault(error)) throw error;
      this.faulted = true;
      this.stop(`The sandbox crashed (${error instanceof Error ? error.message : String(error)}): the script nested too deeply for the engine`);
      return undefined;
    } finally {
      if (!nested) {
        this.cpuUsedMs += performance.now() - (this.enteredAt as number);
        this.enteredAt = undefined;
        if (this.cpuWatch) leftSandbox(this.cpuWatch);
      }
    }
  }

  private drainJobs(): void {
    for (;;) {
      const result = this.runtime.executePendingJobs();
      if (result.error) {
        // Only uncatchable errors (interrupted) escape a job: the promise machinery catches the rest.
        const message = this.describe(result.error);
        result.error.dispose();
        this.stop(`uncaught: ${message}`);
        return;
      }
      if (result.value === 0) return;
    }
  }

  /** Keeps `handle` until the sandbox is disposed. */
  keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.add(handle);
    return handle;
  }

  /** A readable one-liner for a thrown guest value (and its stack, when it has one). */
  describe(error: QuickJSHandle): string {
    try {
      const value = this.context.dump(error) as unknown;
      if (value && typeof value === 'object' && 'message' in value) {
        const { name, message, stack } = value as { name?: string; message?: string; stack?: string };
        const head = name ? `${name}: ${message}` : String(message);
        const frames = typeof stack === 'string' ? stack.trimEnd() : '';
        // Stacks formatted by guest/errors.ts start with the head already.
        return frames.startsWith(head) ? frames : frames ? `${head}\n${frames}` : head;
      }
      return typeof value === 'string' ? value : JSON.stringify(value);
    } catch {
      return 'unknown error';
    }
  }

  /**
   * Gives the sandbox up without freeing it; the caller drops the module. For a run that ran out
   * of memory: QuickJS (bellard's and -ng alike) can leak objects when allocation fails inside a
   * promise job, and freeing that runtime then aborts on its leak assertion.
   */
  abandon(): void {
    this.faulted = true;
  }

  /**
   * Frees the context and runtime. After a fault the engine's state is undefined, so nothing
   * is freed then: the whole module is dropped instead (engine.ts).
   */
  dispose(): void {
    if (this.faulted) return;
    try {
      for (const handle of this.handles) if (handle.alive) handle.dispose();
      this.handles.clear();
      this.context.dispose();
      this.runtime.dispose();
    } catch (error) {
      if (!isEngineFault(error)) throw error;
      this.faulted = true;
    }
  }
}

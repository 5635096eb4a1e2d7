/**
 * What callers of the script runtime see: the inputs and result of a run, and its limits.
 * Plain data only, so a result can be stored on the event or sent over the wire as is.
 */

/** How far one run may go. Every field is optional in `runScript`'s input: the defaults fill the rest. */
export interface RunLimits {
  /** QuickJS heap of the run (its runtime's malloc limit). */
  memoryBytes: number;
  /**
   * Time the script may spend executing inside the sandbox (module evaluation, handlers,
   * callbacks), measured around each entry into QuickJS; waiting for `fetch` or timers is not
   * counted. The interrupt handler stops the script once it is spent.
   */
  cpuTimeMs: number;
  /** Wall-clock time of the whole run, waiting included: pending fetches and timers are abandoned then. */
  wallTimeMs: number;
  /** QuickJS stack limit. Kept well below what the host's own stack can hold (see sandbox.ts). */
  stackBytes: number;
  /** Console lines kept; later ones are counted in a last line instead. */
  maxLogEntries: number;
  /** Characters kept of one console line. */
  maxLogLineLength: number;
  /** `fetch` calls one run may make. */
  maxSubrequests: number;
  /** Bytes of a body crossing the sandbox boundary: the handler's response, and each fetch response. */
  maxBodyBytes: number;
  /** Timers (setTimeout/setInterval) pending at once. */
  maxTimers: number;
}

export const DEFAULT_LIMITS: Readonly<RunLimits> = Object.freeze({
  memoryBytes: 64 * 1024 * 1024,
  cpuTimeMs: 1_000,
  wallTimeMs: 30_000,
  stackBytes: 256 * 1024,
  maxLogEntries: 200,
  maxLogLineLength: 4_096,
  maxSubrequests: 50,
  maxBodyBytes: 5 * 1024 * 1024,
  maxTimers: 100,
});

/**
 * The script's way out: every `fetch` the script makes arrives here as a standard Request.
 * The integrations service passes one that enforces its egress rules; `signal` is aborted when
 * the run ends, so a fetch cannot outlive it.
 */
export type HostFetch = (request: Request) => Promise<Response>;

/** A request given to the script's `fetch(request, env, ctx)` handler. */
export interface ScriptRequest {
  method: string;
  url: string;
  headers: Array<[string, string]>;
  body?: Uint8Array;
}

export interface RunScriptInput {
  /** The published script: an ES module whose default export has `fetch(request, env, ctx)`. */
  script: string;
  /** What to hand the handler; for a GitBook event, `dispatchRequest(...)`'s result. */
  request: ScriptRequest;
  limits?: Partial<RunLimits>;
  /** Without it, `fetch` inside the script rejects. */
  hostFetch?: HostFetch;
  /** The handler's second argument (Workers' bindings); plain JSON. @gitbook/runtime ignores it. */
  env?: Record<string, unknown>;
  /** Shared cells the run publishes its stays inside QuickJS in, for a watchdog on another thread (cpu-watch.ts). */
  cpuWatch?: BigInt64Array;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface LogEntry {
  level: LogLevel;
  message: string;
  /** ISO 8601, when the line was written. */
  timestamp: string;
}

export interface ScriptResponse {
  status: number;
  /** As the script set them, names lower-cased. */
  headers: Array<[string, string]>;
  body: Uint8Array;
}

export interface RunResult {
  /** The handler's Response; absent when the run failed before it answered. */
  response?: ScriptResponse;
  logs: LogEntry[];
  /** Why the run failed (limit reached, exception, no answer…); absent when it answered, whatever the status. */
  error?: string;
  durationMs: number;
  /** CPU time the script spent (inside the engine; for a run whose worker was stopped, its whole run). */
  cpuMs: number;
}

export type CompileResult = { ok: true } | { ok: false; message: string };

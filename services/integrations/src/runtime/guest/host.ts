/**
 * Guest side (runs inside QuickJS). The host's functions (host-bridge.ts), taken from the global
 * where the host put them, and removed from it before any script runs: the script reaches the
 * host only through the Web APIs built on them.
 *
 * Only strings, numbers and ArrayBuffers cross the boundary; headers travel as JSON pairs.
 */
export interface Host {
  /** Returns false once the run's log is full: callers then skip formatting. */
  log(level: string, message: string): boolean;
  fetch(id: number, method: string, url: string, headers: string, body: ArrayBuffer | undefined): void;
  setTimer(id: number, delayMs: number): void;
  clearTimer(id: number): void;
  randomBytes(length: number): ArrayBuffer;
  respond(status: number, headers: string, body: ArrayBuffer): void;
  fail(message: string): void;
  /** The engine threw `out of memory`: the run is over (guest/errors.ts). */
  memoryExceeded(): void;
  maxLogLineLength: number;
}

const scope = globalThis as { __quire_host?: Host };

export const host = scope.__quire_host as Host;
delete scope.__quire_host;

/** JSON as it was before the script ran: a script may replace the global's functions for its own use, and its answer must still reach the host. */
export const json = { stringify: JSON.stringify.bind(JSON), parse: JSON.parse.bind(JSON) };

/** A thrown value as one readable string: its stack (which starts with name and message, errors.ts), or name and message. */
export function describeError(error: unknown): string {
  if (error instanceof Error) {
    const head = `${error.name}: ${error.message}`;
    const stack = typeof error.stack === 'string' ? error.stack.trimEnd() : '';
    return stack.startsWith(head) ? stack : stack ? `${head}\n${stack}` : head;
  }
  try {
    return typeof error === 'string' ? error : (json.stringify(error) ?? String(error));
  } catch {
    return String(error);
  }
}

import { webcrypto } from 'node:crypto';
import type { QuickJSHandle } from 'quickjs-emscripten-core';
import { z } from 'zod';
import { memoryLimitExceeded, type Sandbox } from './sandbox';
import type { HostFetch, LogEntry, LogLevel, RunLimits, ScriptRequest, ScriptResponse } from './types';

/**
 * Host side of the Web APIs glue: the functions the guest code (guest/) builds console, fetch,
 * timers and crypto on, and the guest's entry points the host calls back (dispatch, a fetch's
 * response, a due timer). Only strings, numbers and ArrayBuffers cross, so no host object is
 * ever reachable from the script.
 *
 * It also knows when a run is over: the script answered or failed, a limit stopped it, or it is
 * idle (nothing in flight, no timer) without having answered.
 */
export class HostBridge {
  readonly logs: LogEntry[] = [];
  outcome?: { response: ScriptResponse } | { error: string };

  private logFull = false;
  private guest?: { dispatch: QuickJSHandle; settleFetch: QuickJSHandle; fireTimer: QuickJSHandle };
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private inFlight = 0;
  private subrequests = 0;
  private readonly abort = new AbortController();
  private closed = false;
  private notify?: () => void;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly limits: RunLimits,
    private readonly hostFetch?: HostFetch,
  ) {}

  /** Puts the host's functions where guest/host.ts takes them from (before the guest bundle runs). */
  install(): void {
    const { context: ctx } = this.sandbox;
    const functions: Record<string, (...args: QuickJSHandle[]) => QuickJSHandle | void> = {
      log: (level, message) => (this.log(ctx.getString(level), ctx.getString(message)) ? ctx.true : ctx.false),
      fetch: (id, method, url, headers, body) =>
        this.startFetch(ctx.getNumber(id), ctx.getString(method), ctx.getString(url), ctx.getString(headers), this.readBuffer(body)),
      setTimer: (id, delay) => this.setTimer(ctx.getNumber(id), ctx.getNumber(delay)),
      clearTimer: (id) => this.clearTimer(ctx.getNumber(id)),
      randomBytes: (length) => ctx.newArrayBuffer(webcrypto.getRandomValues(new Uint8Array(Math.min(65_536, ctx.getNumber(length)))).buffer),
      respond: (status, headers, body) => this.respond(ctx.getNumber(status), ctx.getString(headers), this.readBuffer(body)),
      fail: (message) => this.finish({ error: ctx.getString(message) }),
      memoryExceeded: () => {
        this.sandbox.stop(memoryLimitExceeded(this.limits.memoryBytes));
        this.notify?.();
      },
    };
    const host = ctx.newObject();
    for (const [name, fn] of Object.entries(functions)) ctx.newFunction(name, fn).consume((handle) => ctx.setProp(host, name, handle));
    ctx.newNumber(this.limits.maxLogLineLength).consume((handle) => ctx.setProp(host, 'maxLogLineLength', handle));
    ctx.setProp(ctx.global, '__quire_host', host);
    host.dispose();
  }

  /** Takes the guest bundle's exports (its `__quire_guest` global), then clears that global. */
  takeGuestExports(): void {
    const { context: ctx } = this.sandbox;
    const exports = ctx.getProp(ctx.global, '__quire_guest');
    const take = (name: string) => this.sandbox.keep(ctx.getProp(exports, name));
    this.guest = { dispatch: take('dispatch'), settleFetch: take('settleFetch'), fireTimer: take('fireTimer') };
    exports.dispose();
    ctx.setProp(ctx.global, '__quire_guest', ctx.undefined);
  }

  /** Hands `request` to the script's handler, `script` being its module namespace (or its promise). */
  dispatch(script: QuickJSHandle, request: ScriptRequest, env: Record<string, unknown>): void {
    const { context: ctx } = this.sandbox;
    this.call('dispatch', () => [
      script.dup(),
      ctx.newString(request.method),
      ctx.newString(request.url),
      ctx.newString(JSON.stringify(request.headers)),
      request.body ? ctx.newArrayBuffer(new Uint8Array(request.body).buffer) : ctx.undefined,
      ctx.newString(JSON.stringify(env)),
    ]);
  }

  /**
   * Resolves once the run is over: answered, failed, stopped by a limit, idle, or out of wall-clock
   * time (which stops the sandbox). `idle` tells the caller the script never answered.
   */
  waitUntilDone(wallTimeLeftMs: number): Promise<{ idle: boolean }> {
    return new Promise((resolve) => {
      const timeout = setTimeout(
        () => {
          this.sandbox.stop(`wall-clock time limit exceeded (${this.limits.wallTimeMs} ms)`);
          this.notify?.();
        },
        Math.max(0, wallTimeLeftMs),
      );
      this.notify = () => {
        const idle = this.inFlight === 0 && this.timers.size === 0;
        if (this.outcome === undefined && this.sandbox.stopReason === undefined && !idle) return;
        clearTimeout(timeout);
        this.notify = undefined;
        resolve({ idle: this.outcome === undefined && this.sandbox.stopReason === undefined });
      };
      this.notify();
    });
  }

  /** Ends the run's host activity: timers cleared, fetches in flight aborted, late callbacks ignored. */
  close(): void {
    this.closed = true;
    this.notify = undefined;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.abort.abort(new Error('the run is over'));
  }

  private finish(outcome: NonNullable<HostBridge['outcome']>): void {
    this.outcome ??= outcome;
    this.notify?.();
  }

  private log(level: string, message: string): boolean {
    if (this.logFull) return false;
    if (this.logs.length === this.limits.maxLogEntries) {
      this.logFull = true;
      this.logs.push({
        level: 'warn',
        message: `Log limit reached (${this.limits.maxLogEntries} lines): later lines were dropped.`,
        timestamp: new Date().toISOString(),
      });
      return false;
    }
    const known: LogLevel[] = ['debug', 'info', 'warn', 'error'];
    this.logs.push({
      level: known.includes(level as LogLevel) ? (level as LogLevel) : 'info',
      message: message.slice(0, this.limits.maxLogLineLength),
      timestamp: new Date().toISOString(),
    });
    return true;
  }

  private respond(status: number, headers: string, body: Uint8Array | undefined): void {
    const pairs = headerPairsOf(headers);
    if (!Number.isInteger(status) || !pairs)
      this.finish({ error: 'The handler answered something that is not a Response: its status or headers are not readable.' });
    else this.finish({ response: { status, headers: pairs, body: body ?? new Uint8Array(0) } });
  }

  /** Copies an ArrayBuffer out of the sandbox (undefined stays undefined), within the body limit. */
  private readBuffer(handle: QuickJSHandle): Uint8Array | undefined {
    const { context: ctx } = this.sandbox;
    if (ctx.typeof(handle) === 'undefined') return undefined;
    return ctx.getArrayBuffer(handle).consume(({ value: view }) => {
      if (view.length > this.limits.maxBodyBytes) throw new Error(`Body too large: ${view.length} bytes, ${this.limits.maxBodyBytes} at most.`);
      return view.slice();
    });
  }

  private startFetch(id: number, method: string, url: string, headers: string, body: Uint8Array | undefined): void {
    const hostFetch = this.hostFetch;
    if (!hostFetch) throw new Error('fetch is not available to this script.');
    if (++this.subrequests > this.limits.maxSubrequests) throw new Error(`Too many subrequests: ${this.limits.maxSubrequests} per run at most.`);
    // Throws (into the script) on an invalid URL or method, as fetch does.
    const pairs = headerPairsOf(headers);
    if (!pairs) throw new TypeError('The request headers are not readable.');
    const request = new Request(url, { method, headers: pairs, body, signal: this.abort.signal });
    this.inFlight++;
    void (async () => {
      let response: FetchedResponse | undefined;
      let error: string | undefined;
      try {
        const answer = await hostFetch(request);
        const headers = JSON.stringify([...answer.headers]);
        response = {
          status: answer.status,
          statusText: answer.statusText,
          url: answer.url,
          headers,
          body: await readLimited(answer, this.limits.maxBodyBytes),
        };
      } catch (failure) {
        error = failure instanceof Error ? failure.message : String(failure);
      }
      this.settleFetch(id, error, response);
      this.inFlight--;
      this.notify?.();
    })();
  }

  private settleFetch(id: number, error: string | undefined, response?: FetchedResponse): void {
    const { context: ctx } = this.sandbox;
    this.call('settleFetch', () => {
      const init = ctx.newObject();
      for (const [key, value] of Object.entries(response ?? {})) {
        const handle = typeof value === 'number' ? ctx.newNumber(value) : typeof value === 'string' ? ctx.newString(value) : ctx.newArrayBuffer(value.buffer);
        ctx.setProp(init, key, handle);
        handle.dispose();
      }
      return [ctx.newNumber(id), error === undefined ? ctx.undefined : ctx.newString(error), init];
    });
  }

  private setTimer(id: number, delayMs: number): void {
    if (!this.timers.has(id) && this.timers.size >= this.limits.maxTimers) throw new Error(`Too many timers: ${this.limits.maxTimers} pending at most.`);
    clearTimeout(this.timers.get(id));
    // Nothing can fire after the run's wall-clock limit anyway.
    const delay = Math.min(delayMs, this.limits.wallTimeMs);
    this.timers.set(
      id,
      setTimeout(() => {
        this.timers.delete(id);
        this.call('fireTimer', () => [this.sandbox.context.newNumber(id)]);
      }, delay),
    );
  }

  /**
   * Called from guest code only, so always inside an entry that checks whether the run is over
   * once the jobs it queued ran (call, or run.ts's waitUntilDone): checking here would see a run
   * idle before the promise its callback settles could schedule what comes next.
   */
  private clearTimer(id: number): void {
    clearTimeout(this.timers.get(id));
    this.timers.delete(id);
  }

  /**
   * Calls a guest entry point with the arguments `args` makes (then runs the jobs it queued), all
   * inside the sandbox's accounting: an engine fault here stops the run instead of throwing
   * into node's event loop (these calls come from timers and fetch callbacks), and so does any
   * other failure. A synchronous throw from the guest fails the run.
   */
  private call(name: 'dispatch' | 'settleFetch' | 'fireTimer', args: () => QuickJSHandle[]): void {
    const { context: ctx } = this.sandbox;
    const fn = this.guest?.[name];
    if (!fn || this.closed || this.sandbox.stopReason) return;
    try {
      this.sandbox.enter(() => {
        const handles = args();
        const result = ctx.callFunction(fn, ctx.undefined, handles);
        for (const handle of handles) handle.dispose();
        if (result.error) this.finish({ error: this.sandbox.describe(result.error) });
        result.dispose();
      });
    } catch (error) {
      this.sandbox.stop(`Internal error of the script runtime (${name}): ${error instanceof Error ? error.message : String(error)}`);
    }
    this.notify?.();
  }
}

/**
 * Headers as guest code sent them (JSON pairs), or undefined when they are not that: the script
 * shares its realm with the guest code and may have replaced what it uses (JSON.stringify…).
 */
const headerPairs = z.array(z.tuple([z.string(), z.string()]));
function headerPairsOf(json: string): Array<[string, string]> | undefined {
  try {
    const checked = headerPairs.safeParse(JSON.parse(json));
    return checked.success ? checked.data : undefined;
  } catch {
    return undefined;
  }
}

/** What crosses back into the sandbox for a fetch's response (guest/fetch.ts settleFetch). */
interface FetchedResponse {
  status: number;
  statusText: string;
  url: string;
  headers: string;
  body: Uint8Array;
}

/** A response body, read until `limit` bytes at most (then the fetch fails). */
export async function readLimited(response: Response, limit: number): Promise<Uint8Array> {
  if (!response.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size > limit) throw new Error(`Response body too large: more than ${limit} bytes.`);
    chunks.push(chunk);
  }
  const body = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    body.set(chunk, offset);
    offset += chunk.length;
  }
  return body;
}

import { discardEngine, getEngine } from './engine';
import { guestBundle } from './guest-bundle';
import { HostBridge } from './host-bridge';
import { memoryLimitExceeded, Sandbox } from './sandbox';
import { DEFAULT_LIMITS, type RunResult, type RunScriptInput, type ScriptResponse } from './types';

/**
 * CPU allowed for evaluating the Web API polyfills in a new sandbox (~25 ms), before the
 * script's own budget starts: that cost is ours, not the script's.
 */
const SETUP_CPU_MS = 2_000;

/** Whether the run hit the memory limit: its sandbox is not to be freed (Sandbox.abandon). */
function ranOutOfMemory(sandbox: Sandbox, failure: string | undefined, bridge: HostBridge): boolean {
  if (sandbox.stopReason?.startsWith('Memory limit')) return true;
  const outcomeError = bridge.outcome && 'error' in bridge.outcome ? bridge.outcome.error : '';
  return /InternalError: out of memory/.test(`${failure ?? ''} ${outcomeError}`);
}

/**
 * Runs a published script once: a fresh sandbox, the Web APIs, the script's module, then its
 * `fetch` handler called with `input.request`. Never throws for anything the script does; it
 * throws only if the runtime itself cannot start (the wasm engine or the guest bundle).
 */
export async function runScript(input: RunScriptInput): Promise<RunResult> {
  const started = performance.now();
  const limits = { ...DEFAULT_LIMITS, ...input.limits };
  const [engine, bundle] = await Promise.all([getEngine(), guestBundle()]);
  const sandbox = new Sandbox(engine, { memoryBytes: limits.memoryBytes, stackBytes: limits.stackBytes, cpuTimeMs: SETUP_CPU_MS }, input.cpuWatch);
  const bridge = new HostBridge(sandbox, limits, input.hostFetch);
  const { context } = sandbox;
  let failure: string | undefined;
  let outOfMemory = false;
  try {
    // Every call into QuickJS goes through sandbox.enter: CPU accounting, and an engine fault
    // becomes a stop instead of an exception.
    sandbox.enter(() => {
      bridge.install();
      const setup = context.evalCode(bundle, 'quire:web-apis.js', { type: 'global' });
      if (setup.error) failure = `The sandbox could not be set up: ${sandbox.describe(setup.error)}`;
      else bridge.takeGuestExports();
      setup.dispose();
    });
    if (failure === undefined && !sandbox.stopReason) {
      sandbox.resetCpu(limits.cpuTimeMs);
      sandbox.enter(() => {
        const loaded = context.evalCode(input.script, 'script.js', { type: 'module' });
        if (loaded.error) failure = `The script failed to load: ${sandbox.describe(loaded.error)}`;
        else bridge.dispatch(loaded.value, input.request, input.env ?? {});
        loaded.dispose();
      });
      if (failure === undefined) {
        const { idle } = await bridge.waitUntilDone(limits.wallTimeMs - (performance.now() - started));
        if (idle) failure = 'The handler never answered: its promise is still pending, with no fetch or timer left to wait for.';
      }
    }
  } finally {
    bridge.close();
    outOfMemory = ranOutOfMemory(sandbox, failure, bridge);
    if (outOfMemory) sandbox.abandon();
    sandbox.dispose();
    if (sandbox.faulted) await discardEngine(engine);
  }

  const outcome = bridge.outcome;
  let response: ScriptResponse | undefined;
  let error: string | undefined;
  // A limit wins over anything the script did after hitting it (caught the out-of-memory error
  // and answered before the interrupt handler's next check, say), and explains whatever error
  // it caused inside the script (an `interrupted`).
  if (sandbox.stopReason) error = sandbox.stopReason;
  else if (outcome && 'response' in outcome) response = outcome.response;
  else error = outcome && 'error' in outcome ? `The handler failed: ${outcome.error}` : failure;
  // An out-of-memory error that guest/errors.ts did not see (it stops the run when it does).
  if (error && !sandbox.stopReason && outOfMemory) error = `${memoryLimitExceeded(limits.memoryBytes)}: ${error}`;
  return { response, logs: bridge.logs, error, durationMs: performance.now() - started, cpuMs: sandbox.cpuUsed };
}

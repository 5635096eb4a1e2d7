import { DEFAULT_LIMITS, type CompileResult } from './types';
import { discardEngine, getEngine } from './engine';
import { Sandbox } from './sandbox';

/**
 * Checks that `script` compiles as an ES module in the sandbox's engine, without running it.
 * The message is QuickJS's (e.g. `SyntaxError: unexpected token…` with its line and column),
 * fit for a publish endpoint's 400. A script that imports anything fails here too: sandboxes
 * load no modules, so a published script must be a self-contained bundle.
 */
export async function compileScript(script: string): Promise<CompileResult> {
  const engine = await getEngine();
  const sandbox = new Sandbox(engine, { memoryBytes: DEFAULT_LIMITS.memoryBytes, stackBytes: DEFAULT_LIMITS.stackBytes, cpuTimeMs: DEFAULT_LIMITS.cpuTimeMs });
  let message: string | undefined;
  try {
    const result = sandbox.enter(() => sandbox.context.evalCode(script, 'script.js', { type: 'module', compileOnly: true }));
    if (result?.error) message = sandbox.describe(result.error);
    result?.dispose();
  } finally {
    sandbox.dispose();
    if (sandbox.faulted) await discardEngine(engine);
  }
  message ??= sandbox.stopReason;
  return message === undefined ? { ok: true } : { ok: false, message };
}

/**
 * The sandboxed script runtime of the integrations service: runs a published GitBook-style
 * integration script (a Workers-style ES module) for one event, inside QuickJS compiled to
 * WebAssembly, with memory, CPU and wall-clock limits, no host access but the Web APIs it is
 * given, and `fetch` going through the caller's hostFetch. The service runs scripts on a pool of
 * worker threads (ScriptPool); runScript is what each worker does for one run.
 *
 * This file is the module's only door.
 */
export { compileScript } from './compile';
export { runScript } from './run';
export { ScriptPool, ScriptPoolBusyError, type ScriptPoolOptions } from './pool';
export { runOutcome, type RunOutcome } from './outcome';
export { dispatchRequest } from './dispatch';
export type { DispatchInput, IntegrationEnvironment, IntegrationEvent } from './dispatch';
export { DEFAULT_LIMITS } from './types';
export type { CompileResult, HostFetch, LogEntry, LogLevel, RunLimits, RunResult, RunScriptInput, ScriptRequest, ScriptResponse } from './types';

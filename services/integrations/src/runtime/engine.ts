import { readFile } from 'node:fs/promises';
import { newQuickJSWASMModuleFromVariant, newVariant, type QuickJSSyncVariant, type QuickJSWASMModule } from 'quickjs-emscripten-core';
import { QuickJSFFI } from '@jitl/quickjs-ng-wasmfile-release-sync/ffi';
import emscriptenModuleLoader from '@jitl/quickjs-ng-wasmfile-release-sync/emscripten-module';

/**
 * The QuickJS WebAssembly module, shared by all runs: each run gets its own QuickJS runtime (own
 * heap, limits and GC) inside it, which is what isolates runs from one another; the module only
 * holds the compiled engine and the linear memory those runtimes allocate from. The engine is
 * quickjs-ng, the maintained fork: it has V8's stack trace API (guest/errors.ts relies on it)
 * and queueMicrotask.
 *
 * A wasm-level fault (the host stack exhausted in the middle of QuickJS, an abort) leaves the
 * module's C state undefined: such a module is dropped, never disposed (disposing would walk
 * the broken state), and the next run instantiates a fresh one from the compiled wasm.
 */

// The package's own variant loads its parts with `import()`, which jest's CommonJS sandbox
// refuses; the same two parts, required directly, work under node and jest alike.
const releaseSync: QuickJSSyncVariant = {
  type: 'sync',
  importFFI: async () => QuickJSFFI,
  importModuleLoader: async () => emscriptenModuleLoader,
};

/** node's WebAssembly, which the project's libs (ES2023, no DOM) do not declare. */
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<CompiledWasm>; RuntimeError: new () => Error } }).WebAssembly;
export type CompiledWasm = NonNullable<Parameters<typeof newVariant>[1]['wasmModule']>;

let compiled: Promise<CompiledWasm> | undefined;
let current: Promise<QuickJSWASMModule> | undefined;

/** The compiled engine, compiled once per process: script workers are handed the main thread's (pool.ts) instead of compiling their own. */
export function compileWasm(): Promise<CompiledWasm> {
  if (!compiled) {
    compiled = readFile(require.resolve('@jitl/quickjs-ng-wasmfile-release-sync/wasm')).then((bytes) => wasm.compile(bytes));
    compiled.catch(() => (compiled = undefined)); // a failure is not remembered
  }
  return compiled;
}

/** In a script worker: the compiled engine the main thread handed over. */
export function useCompiledWasm(wasmModule: CompiledWasm): void {
  compiled = Promise.resolve(wasmModule);
}

/** The live module, instantiated on first use (and again after a fault). */
export function getEngine(): Promise<QuickJSWASMModule> {
  if (!current) {
    current = compileWasm().then((wasmModule) => newQuickJSWASMModuleFromVariant(newVariant(releaseSync, { wasmModule })));
    current.catch(() => (current = undefined));
  }
  return current;
}

/** Forgets `engine` if it is still the live one: called when a run saw it fault. */
export async function discardEngine(engine: QuickJSWASMModule): Promise<void> {
  if (current && (await current.catch(() => undefined)) === engine) current = undefined;
}

/** Forgets the module and its compiled wasm, so the next run starts cold (measurements, tests). */
export function resetEngine(): void {
  current = undefined;
  compiled = undefined;
}

/**
 * Whether an exception thrown out of QuickJS means the module itself is broken: the host stack
 * exhausted inside wasm (V8's RangeError), or a wasm trap/abort (RuntimeError). Errors QuickJS
 * reports as JS exceptions never get here: they come back as values.
 */
export function isEngineFault(error: unknown): boolean {
  return error instanceof wasm.RuntimeError || (error instanceof RangeError && /call stack/i.test(error.message));
}

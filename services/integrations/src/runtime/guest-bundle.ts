import path from 'node:path';
import { build } from 'esbuild';

/**
 * The code every sandbox evaluates before the script: the Web API polyfills and the glue to the
 * host (guest/). It is compiled with the service (guest/*.ts → dist), and bundled here with its
 * npm polyfills into one classic script, once per process: QuickJS has no module loader in our
 * sandboxes, and one minified script is the cheapest thing to evaluate per run.
 *
 * Bundling resolves `guest/index` to the .ts source under jest and to the compiled .js in dist.
 */
let bundle: Promise<string> | undefined;

/** In a script worker: the bundle the main thread built (pool.ts), so that workers never run esbuild. */
export function useGuestBundle(text: string): void {
  bundle = Promise.resolve(text);
}

export function guestBundle(): Promise<string> {
  if (bundle) return bundle;
  bundle = build({
    entryPoints: [path.join(__dirname, 'guest', 'index')],
    bundle: true,
    write: false,
    format: 'iife',
    // The bundle's exports land in this global; host-bridge.ts takes them, then clears it.
    globalName: '__quire_guest',
    platform: 'neutral',
    // Neither node nor browser: the packages' plain builds (a "browser" build may just re-export
    // the browser's own global, which QuickJS does not have). CommonJS ones (core-js) need `main`.
    mainFields: ['module', 'main'],
    // tsc compiles guest/ to CommonJS, so in dist its imports are require() calls; the ESM-only
    // polyfills (formdata-node) must still resolve.
    conditions: ['import'],
    target: 'es2020',
    // Names kept, for readable stacks from inside the polyfills: evaluating it costs ~2 ms more.
    minifyWhitespace: true,
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'silent',
  }).then((result) => result.outputFiles[0].text);
  bundle.catch(() => (bundle = undefined)); // a failure is not remembered
  return bundle;
}

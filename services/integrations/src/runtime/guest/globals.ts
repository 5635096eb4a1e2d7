/**
 * Guest side. The Web APIs QuickJS lacks, from maintained polyfills; the fetch classes, whose
 * body handling needs glue, are in body.ts.
 */
import 'core-js/actual/url';
import 'core-js/actual/url-search-params';
import 'core-js/actual/atob';
import 'core-js/actual/btoa';
import 'core-js/actual/structured-clone';
import 'core-js/actual/queue-microtask';
import { TextDecoder, TextEncoder } from 'text-encoding-utf-8';
import { Blob, File, FormData } from 'formdata-node';

// Workers (the platform GitBook scripts are written for) name the global `self` too.
Object.assign(globalThis, { self: globalThis, TextEncoder, TextDecoder, Blob, File, FormData });

// There is no ReadableStream in the sandbox. A Blob's stream() gives an async iterator of its
// bytes instead, which is what form-data-encoder reads when it serialises a file (body.ts).
Object.defineProperty(Blob.prototype, 'stream', {
  configurable: true,
  writable: true,
  value: async function* stream(this: Blob): AsyncGenerator<Uint8Array> {
    yield new Uint8Array(await this.arrayBuffer());
  },
});

/**
 * Guest side. Headers, Request and Response from whatwg-fetch, with their body readers replaced.
 *
 * whatwg-fetch is written for browsers, where Blob and FileReader carry bodies: without them it
 * reads bytes as Latin-1, cannot serialise FormData and parses only urlencoded forms. Here a
 * body is kept as given (`_bodyInit`, whatwg-fetch's own field) and turned into bytes when
 * read: UTF-8 for text, form-data-encoder for FormData, @remix-run/multipart-parser to read a
 * multipart body back into a FormData (how @gitbook/runtime reads every event).
 */
import { Headers, Request, Response } from 'whatwg-fetch';
import { Blob, File, FormData } from 'formdata-node';
import { FormDataEncoder } from 'form-data-encoder';
import { getMultipartBoundary, parseMultipart } from '@remix-run/multipart-parser';
import { json } from './host';

/** The parts of whatwg-fetch's Body mixin this file relies on. */
interface PolyfillBody {
  _bodyInit: unknown;
  _initBody(body: unknown): void;
  bodyUsed: boolean;
  headers: Headers;
  /** Set here for a FormData body: its boundary is in the content-type, set at construction. */
  _multipart?: FormDataEncoder;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

async function readBytes(body: PolyfillBody): Promise<Uint8Array> {
  if (body.bodyUsed) throw new TypeError('Body has already been consumed.');
  body.bodyUsed = true;
  const init = body._bodyInit;
  if (init === undefined || init === null) return new Uint8Array(0);
  if (typeof init === 'string') return encoder.encode(init);
  if (init instanceof ArrayBuffer) return new Uint8Array(init.slice(0));
  if (ArrayBuffer.isView(init)) return new Uint8Array(init.buffer.slice(init.byteOffset, init.byteOffset + init.byteLength));
  if (init instanceof URLSearchParams) return encoder.encode(init.toString());
  if (init instanceof Blob) return new Uint8Array(await init.arrayBuffer());
  if (body._multipart) {
    const chunks: Uint8Array[] = [];
    for await (const chunk of body._multipart.encode()) chunks.push(chunk);
    return concat(chunks);
  }
  return encoder.encode(String(init));
}

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.length, 0));
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.length;
  }
  return out;
}

function parseFormData(bytes: Uint8Array, contentType: string): FormData {
  const form = new FormData();
  if (/^multipart\/form-data/i.test(contentType)) {
    const boundary = getMultipartBoundary(contentType);
    if (!boundary) throw new TypeError('Multipart body has no boundary.');
    // The body is already in memory, bounded by the run's limits: no per-part limit on top.
    const size = bytes.length + 1;
    for (const part of parseMultipart(bytes, { boundary, maxFileSize: size, maxTotalSize: size })) {
      if (part.name === undefined) continue;
      if (part.filename !== undefined) form.append(part.name, new File([part.bytes], part.filename, { type: part.mediaType ?? '' }));
      else form.append(part.name, part.text);
    }
  } else if (/^application\/x-www-form-urlencoded/i.test(contentType)) {
    for (const [name, value] of new URLSearchParams(decoder.decode(bytes))) form.append(name, value);
  } else {
    throw new TypeError(`Could not parse content as FormData (content-type: ${contentType || 'none'}).`);
  }
  return form;
}

for (const proto of [Request.prototype, Response.prototype] as unknown as PolyfillBody[]) {
  const initBody = proto._initBody;
  Object.assign(proto, {
    _initBody(this: PolyfillBody, body: unknown) {
      const declared = this.headers.get('content-type');
      initBody.call(this, body);
      // Not knowing FormData or Blob here, whatwg-fetch took them for text (text/plain): give
      // them the content types the Fetch standard does, unless the caller set one.
      if (body instanceof FormData) {
        // A Request copied from another keeps its content-type, so keeps its boundary.
        const boundary = declared && /^multipart\/form-data/i.test(declared) ? getMultipartBoundary(declared) : null;
        this._multipart = boundary ? new FormDataEncoder(body, boundary) : new FormDataEncoder(body);
        if (!declared) this.headers.set('content-type', this._multipart.contentType);
      } else if (body instanceof Blob && !declared) {
        if (body.type) this.headers.set('content-type', body.type);
        else this.headers.delete('content-type');
      }
    },
    async bytes(this: PolyfillBody) {
      return readBytes(this);
    },
    async arrayBuffer(this: PolyfillBody) {
      return (await readBytes(this)).buffer;
    },
    async text(this: PolyfillBody) {
      return decoder.decode(await readBytes(this));
    },
    async json(this: PolyfillBody) {
      return json.parse(decoder.decode(await readBytes(this)));
    },
    async blob(this: PolyfillBody) {
      return new Blob([await readBytes(this)], { type: this.headers.get('content-type') ?? '' });
    },
    async formData(this: PolyfillBody) {
      return parseFormData(await readBytes(this), this.headers.get('content-type') ?? '');
    },
  });
}

// Response.json(data, init), which Workers code uses and whatwg-fetch predates.
Object.assign(Response, {
  json(data: unknown, init: ResponseInit = {}) {
    const headers = new Headers(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new Response(json.stringify(data), { ...init, headers });
  },
});

Object.assign(globalThis, { Headers, Request, Response });

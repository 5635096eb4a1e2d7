// Guest side: the polyfills that ship no types. They implement the standard classes, whose
// types node already declares.
declare module 'whatwg-fetch' {
  export const Headers: typeof globalThis.Headers;
  export const Request: typeof globalThis.Request;
  export const Response: typeof globalThis.Response;
}

declare module 'text-encoding-utf-8' {
  export const TextEncoder: typeof globalThis.TextEncoder;
  export const TextDecoder: typeof globalThis.TextDecoder;
}

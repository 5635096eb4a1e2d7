/**
 * Guest side. `fetch`: the request is serialised to the host, which calls the caller's hostFetch
 * (host-bridge.ts) and settles it later, by id. The host may refuse at once (no hostFetch, too
 * many subrequests): fetch rejects then, as it does for a network error, with a TypeError.
 */
import { host, json } from './host';

const pending = new Map<number, { resolve: (response: Response) => void; reject: (error: Error) => void }>();
let nextId = 1;

async function fetch(input: Request | string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.arrayBuffer();
  const id = nextId++;
  return new Promise<Response>((resolve, reject) => {
    pending.set(id, { resolve, reject });
    try {
      host.fetch(id, request.method, request.url, json.stringify([...request.headers]), body);
    } catch (error) {
      pending.delete(id);
      reject(new TypeError(error instanceof Error ? error.message : String(error)));
    }
  });
}

/** Called by the host when fetch `id` has its response, or failed (`error` set). */
export function settleFetch(
  id: number,
  error: string | undefined,
  response: { status: number; statusText: string; url: string; headers: string; body: ArrayBuffer },
): void {
  const call = pending.get(id);
  if (!call) return;
  pending.delete(id);
  if (error !== undefined) return call.reject(new TypeError(error));
  const { status, statusText, url, headers, body } = response;
  const nullBody = status === 204 || status === 205 || status === 304;
  // `url` is a whatwg-fetch init option: the final URL, after redirects.
  call.resolve(new Response(nullBody ? null : body, { status, statusText, headers: json.parse(headers), url } as ResponseInit));
}

Object.assign(globalThis, { fetch });

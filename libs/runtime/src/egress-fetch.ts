import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { checkEgressHost, EgressLookupError, EgressRefusedError, resolveEgressAddresses, type EgressPolicy } from './egress';

/*
 * Every outbound HTTP request a service makes to an address a user chose (integrations'
 * deliveries to a dev tunnel and scripts' fetch, publishing's OpenID Connect providers):
 * http(s) only, to addresses the egress policy allows, connecting to exactly the addresses
 * that were checked (the name is never resolved again, so a DNS answer that changes in between
 * cannot reach an internal address), no redirects followed, bounded in time and in the size of
 * the answer.
 */

export interface EgressRequest {
  method: string;
  headers: Array<[string, string]>;
  body?: Uint8Array;
  /** Whole exchange, connection included. */
  timeoutMs: number;
  /** Bytes of the answer's body kept; a larger answer fails. */
  maxResponseBytes: number;
  signal?: AbortSignal;
}

export interface EgressResponse {
  status: number;
  statusText: string;
  headers: Array<[string, string]>;
  body: Buffer;
}

/** Why a request was not made or did not complete (the message is safe to show to whoever chose the address). */
export class EgressError extends Error {
  constructor(
    message: string,
    /** Connection or timeout problems may go away; a refused address will not. */
    readonly transient: boolean,
  ) {
    super(message);
    this.name = 'EgressError';
  }
}

/**
 * The URL parsed if its form lets the service call it: http or https, no credentials, and a host
 * that is not an address the policy refuses (an IP literal, `localhost`). Its name is not
 * resolved here: that is checkEgressUrl's, at each connection (a DNS answer may change).
 */
export function checkEgressUrlForm(raw: string, policy: EgressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EgressError('not a valid URL', false);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new EgressError('only http and https URLs are allowed', false);
  if (url.username || url.password) throw new EgressError('URLs with credentials are not allowed', false);
  try {
    checkEgressHost(url.hostname, policy);
  } catch (error) {
    if (error instanceof EgressRefusedError) throw new EgressError(`${url.host}: the address is not allowed`, false);
    throw error;
  }
  return url;
}

/**
 * The URL parsed if it is one the policy lets the service call: its form (checkEgressUrlForm),
 * and its host resolving to allowed addresses only (which it returns, to pin).
 */
export async function checkEgressUrl(raw: string, policy: EgressPolicy): Promise<{ url: URL; addresses: string[] }> {
  const url = checkEgressUrlForm(raw, policy);
  try {
    return { url, addresses: await resolveEgressAddresses(url.hostname, policy) };
  } catch (error) {
    // One reason (and one retry rule) for both: a caller must not learn which internal names resolve.
    if (error instanceof EgressRefusedError || error instanceof EgressLookupError)
      throw new EgressError(`${url.host}: the address does not resolve or is not allowed`, false);
    throw error;
  }
}

/** A lookup that answers the checked addresses instead of asking DNS again. */
function pinnedLookup(addresses: string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIP(address) }));
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, entries);
    else callback(null, entries[0].address, entries[0].family);
  }) as unknown as LookupFunction;
}

/** One HTTP exchange with `raw` under the egress policy (see above). Throws EgressError. */
export async function egressRequest(raw: string, request: EgressRequest, policy: EgressPolicy): Promise<EgressResponse> {
  const { url, addresses } = await checkEgressUrl(raw, policy);
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<EgressResponse>((resolve, reject) => {
    let settled = false;
    const fail = (error: EgressError) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      outgoing.destroy();
      reject(error);
    };
    const headers: Record<string, string> = {};
    for (const [name, value] of request.headers) headers[name.toLowerCase()] = value;
    if (request.body) headers['content-length'] = String(request.body.byteLength);
    const outgoing = client.request(
      url,
      {
        method: request.method,
        headers,
        // The name stays the URL's (Host header, TLS server name and certificate check); only the address is pinned.
        lookup: pinnedLookup(addresses),
        agent: false,
      },
      (incoming) => {
        const chunks: Buffer[] = [];
        let size = 0;
        incoming.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > request.maxResponseBytes) fail(new EgressError(`the answer is larger than ${request.maxResponseBytes} bytes`, false));
          else chunks.push(chunk);
        });
        incoming.on('error', () => fail(new EgressError('the connection was closed before the answer was complete', true)));
        incoming.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          request.signal?.removeEventListener('abort', onAbort);
          const responseHeaders: Array<[string, string]> = [];
          for (let i = 0; i + 1 < incoming.rawHeaders.length; i += 2) responseHeaders.push([incoming.rawHeaders[i].toLowerCase(), incoming.rawHeaders[i + 1]]);
          resolve({ status: incoming.statusCode ?? 0, statusText: incoming.statusMessage ?? '', headers: responseHeaders, body: Buffer.concat(chunks) });
        });
      },
    );
    const timer = setTimeout(() => fail(new EgressError(`no answer within ${request.timeoutMs} ms`, true)), request.timeoutMs);
    const onAbort = () => fail(new EgressError('the request was aborted', false));
    if (request.signal?.aborted) return onAbort();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    outgoing.on('error', (error: NodeJS.ErrnoException) => fail(new EgressError(`${url.host}: ${error.code ?? error.message}`, true)));
    outgoing.end(request.body ? Buffer.from(request.body.buffer, request.body.byteOffset, request.body.byteLength) : undefined);
  });
}

/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

/**
 * The `fetch` a script gets (the runtime's HostFetch): a standard Request in, a standard
 * Response out, through {@link egressRequest}. A redirect is answered as it is (3xx with its
 * Location), never followed: following it would skip the check of where it points.
 */
export function egressFetch(policy: EgressPolicy, options: { timeoutMs: number; maxResponseBytes: number }): (request: Request) => Promise<Response> {
  return async (request) => {
    const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
    const answer = await egressRequest(
      request.url,
      {
        method: request.method,
        headers: [...request.headers],
        body,
        timeoutMs: options.timeoutMs,
        maxResponseBytes: options.maxResponseBytes,
        signal: request.signal,
      },
      policy,
    );
    if (answer.status < 200 || answer.status > 599) throw new EgressError(`unsupported answer status ${answer.status}`, false);
    const headers = new Headers();
    for (const [name, value] of answer.headers) headers.append(name, value);
    return new Response(NULL_BODY.has(answer.status) ? null : answer.body, { status: answer.status, statusText: answer.statusText, headers });
  };
}

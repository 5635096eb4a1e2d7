import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { HostFetch } from '../types';

/** A call the recorder received. */
export interface RecordedCall {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

export interface Recorder {
  /** `http://127.0.0.1:<port>` */
  url: string;
  calls: RecordedCall[];
  /** A fetch that reaches this recorder only, as the service's egress rules would allow one host. */
  hostFetch: HostFetch;
  close(): Promise<void>;
}

/**
 * Test support: an HTTP server on 127.0.0.1 that records what scripts send it, and answers
 * JSON: for `/v1/spaces/<id>`, a space (the GitBook API call of the test integration); for
 * `/status/<code>`, that status; for anything else, `{ ok: true }` and what it received.
 */
export async function startRecorder(): Promise<Recorder> {
  const calls: RecordedCall[] = [];
  const server = createServer(async (req: IncomingMessage, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const path = req.url ?? '/';
    calls.push({ method: req.method ?? 'GET', path, headers: req.headers, body: Buffer.concat(chunks) });
    const space = /^\/v1\/spaces\/([^/?]+)/.exec(path);
    const status = /^\/status\/(\d{3})/.exec(path);
    const payload = space ? { object: 'space', id: space[1], title: 'Recorded space' } : { ok: true, method: req.method, path };
    res.writeHead(status ? Number(status[1]) : 200, { 'content-type': 'application/json', 'x-recorder': 'yes' });
    res.end(JSON.stringify(payload));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const hostFetch: HostFetch = async (request) => {
    if (new URL(request.url).origin !== url) throw new Error(`egress to ${new URL(request.url).host} is not allowed`);
    return fetch(request);
  };
  return {
    url,
    calls,
    hostFetch,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

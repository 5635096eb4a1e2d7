import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/*
 * Test support: a dev tunnel stand-in on 127.0.0.1 (what `gitbook dev` runs behind its tunnel),
 * recording each delivery with its event and environment read from the multipart body.
 */

export interface ReceivedDelivery {
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  event: { eventId: string; type: string; [field: string]: unknown };
  environment: Record<string, any>;
  /** performance.now() when it arrived. */
  receivedAt: number;
}

export interface TunnelRecorder {
  /** `http://127.0.0.1:<port>/tunnel` */
  url: string;
  received: ReceivedDelivery[];
  /** Statuses to answer the next deliveries with (then 200). `/redirect` answers 302 to `/tunnel`. */
  answers: number[];
  close(): Promise<void>;
}

export async function startTunnelRecorder(): Promise<TunnelRecorder> {
  const received: ReceivedDelivery[] = [];
  const answers: number[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/tunnel' }).end();
      return;
    }
    try {
      const form = await new Request('http://tunnel.invalid/', {
        method: 'POST',
        headers: { 'content-type': String(req.headers['content-type']) },
        body,
      }).formData();
      received.push({
        path: req.url ?? '/',
        headers: req.headers,
        body,
        event: JSON.parse(String(form.get('event'))),
        environment: JSON.parse(String(form.get('environment'))),
        receivedAt: performance.now(),
      });
    } catch {
      res.writeHead(400).end('not a dispatch request');
      return;
    }
    res.writeHead(answers.shift() ?? 200, { 'content-type': 'text/plain' }).end('OK');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/tunnel`;
  return { url, received, answers, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

/** What a receiver does with X-Quire-Delivery-Signature: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>">`, `t` within 5 minutes. */
export function verifySignature(secret: string, header: string | string[] | undefined, body: Buffer): boolean {
  const match = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(typeof header === 'string' ? header : '');
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(`${match[1]}.`).update(body).digest();
  return Math.abs(Date.now() / 1000 - Number(match[1])) < 300 && timingSafeEqual(expected, Buffer.from(match[2], 'hex'));
}

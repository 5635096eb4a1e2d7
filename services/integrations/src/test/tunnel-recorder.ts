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
  /** performance.now() when the answer was sent, if it was. */
  answeredAt?: number;
  /** Answered 2xx and the answer handed to a connection still open: the sender may count it done. */
  acknowledged: boolean;
  /** The sender went away before the answer (e.g. it crashed mid-delivery): it never learned the outcome. */
  cut: boolean;
}

export interface TunnelRecorder {
  /** `http://127.0.0.1:<port>/tunnel` */
  url: string;
  received: ReceivedDelivery[];
  /** Statuses to answer the next deliveries with (then 200). `/redirect` answers 302 to `/tunnel`. */
  answers: number[];
  close(): Promise<void>;
}

/**
 * With `holdMs`, each answer waits that long after the request arrived (a slow receiver: deliveries
 * stay in flight); with `until`, until that settles (a receiver that answers when the test says).
 */
export async function startTunnelRecorder(options: { holdMs?: number; until?: Promise<unknown> } = {}): Promise<TunnelRecorder> {
  const received: ReceivedDelivery[] = [];
  const answers: number[] = [];
  const server = createServer(async (req, res) => {
    let senderGone = false;
    res.once('close', () => (senderGone = !res.writableFinished));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    if (req.url === '/redirect') {
      res.writeHead(302, { location: '/tunnel' }).end();
      return;
    }
    let delivery: ReceivedDelivery;
    try {
      const form = await new Request('http://tunnel.invalid/', {
        method: 'POST',
        headers: { 'content-type': String(req.headers['content-type']) },
        body,
      }).formData();
      delivery = {
        path: req.url ?? '/',
        headers: req.headers,
        body,
        event: JSON.parse(String(form.get('event'))),
        environment: JSON.parse(String(form.get('environment'))),
        receivedAt: performance.now(),
        acknowledged: false,
        cut: false,
      };
      received.push(delivery);
    } catch {
      res.writeHead(400).end('not a dispatch request');
      return;
    }
    if (options.holdMs) await new Promise((resolve) => setTimeout(resolve, options.holdMs));
    await options.until;
    if (senderGone || res.destroyed) {
      delivery.cut = true;
      return;
    }
    const status = answers.shift() ?? 200;
    delivery.answeredAt = performance.now();
    res.writeHead(status, { 'content-type': 'text/plain' }).end('OK', () => (delivery.acknowledged = status >= 200 && status < 300 && !senderGone));
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

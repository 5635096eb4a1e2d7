import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Request, Response } from 'express';

/*
 * HTTP caching and compression of answers that are not JSON (published pages, downloads): an
 * ETag the server chooses, a 304 for a revisit that names it, and gzip for a client that takes it,
 * made once per body. The gzip of a body is another representation of it, so it has its own ETag
 * (RFC 9110 §8.8.3); a revisit naming either is a 304, as both stand for the same content.
 */

const gzipAsync = promisify(gzip);

/** Text bodies shorter than this go as they are: compressing them saves less than it costs. */
export const COMPRESS_FROM = 1024;

/**
 * A text body and, once a client that accepts it asks, its gzip (made once, off the event loop,
 * and kept with the body: a cached page is compressed once per version, not per request).
 */
export class Body {
  private gzipped?: Promise<Buffer>;

  constructor(readonly text: string) {}

  get compressible(): boolean {
    return this.text.length >= COMPRESS_FROM;
  }

  gzip(): Promise<Buffer> {
    this.gzipped ??= gzipAsync(this.text, { level: 6 });
    return this.gzipped;
  }

  /** Its weight in a cache: the text and its gzip (about a tenth of HTML). */
  get weight(): number {
    return Math.ceil(this.text.length * 1.15);
  }
}

/** Whether the client takes gzip (Accept-Encoding, with its q-values). */
export const acceptsGzip = (req: Request): boolean => req.acceptsEncodings('gzip', 'identity') === 'gzip';

/** The ETag of a body's gzip. */
export const gzipTag = (etag: string): string => `${etag.slice(0, -1)}-gz"`;

/** Whether the request's If-None-Match names `etag` (or its gzip's). */
export function matchesEtag(req: Request, etag: string): boolean {
  const asked = (req.get('if-none-match') ?? '').split(/\s*,\s*/);
  const gz = gzipTag(etag);
  return asked.some((tag) => {
    const strong = tag.startsWith('W/') ? tag.slice(2) : tag;
    return strong === etag || strong === gz;
  });
}

/**
 * Answers `body` with `status` and `headers`: a text body long enough goes gzipped to a client
 * that takes it (with its gzip's ETag when `headers` has one); bytes go as they are.
 */
export async function sendBody(req: Request, res: Response, status: number, headers: Record<string, string>, body: string | Body | Buffer): Promise<void> {
  res.status(status).set(headers);
  if (Buffer.isBuffer(body)) return void res.send(body);
  const content = typeof body === 'string' ? new Body(body) : body;
  if (!content.compressible) return void res.send(content.text);
  res.vary('Accept-Encoding');
  if (!acceptsGzip(req)) return void res.send(content.text);
  const gzipped = await content.gzip();
  res.set('content-encoding', 'gzip');
  if (headers.etag) res.set('etag', gzipTag(headers.etag));
  res.send(gzipped);
}

/**
 * Answers a representation known by its ETag (`headers.etag`): a 304 when the request names it,
 * without making the body; else `body()` with `status`. `compressible`: whether the body may go
 * gzipped (then the 304 names the gzip's ETag to a client that takes it). True when it was a 304.
 */
export async function sendCached(
  req: Request,
  res: Response,
  answer: {
    status?: number;
    headers: Record<string, string> & { etag: string };
    compressible: boolean;
    body: () => string | Body | Buffer | Promise<string | Body | Buffer>;
  },
): Promise<boolean> {
  const { headers } = answer;
  if (matchesEtag(req, headers.etag)) {
    // A 304 has no body, so no type (as express's own 304s).
    const { 'content-type': _type, ...kept } = headers;
    const gzipped = answer.compressible && acceptsGzip(req);
    res.status(304).set({ ...kept, ...(gzipped ? { etag: gzipTag(headers.etag) } : {}) });
    if (answer.compressible) res.vary('Accept-Encoding');
    res.end();
    return true;
  }
  await sendBody(req, res, answer.status ?? 200, headers, await answer.body());
  return false;
}

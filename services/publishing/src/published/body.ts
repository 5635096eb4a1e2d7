import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Request } from 'express';

const gzipAsync = promisify(gzip);

/** Bodies shorter than this go as they are: compressing them saves less than it costs. */
export const COMPRESS_FROM = 1024;

/**
 * A response body and, once a client that accepts it asks, its gzip (made once, off the event
 * loop, and kept with the body: a cached page is compressed once per version, not per request).
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

/**
 * The ETag of a representation: the gzip of a body is another representation of it, so its tag
 * differs (RFC 9110 §8.8.3); `matches` takes either, as both stand for the same content.
 */
export const gzipTag = (etag: string): string => `${etag.slice(0, -1)}-gz"`;

export function matches(req: Request, etag: string): boolean {
  const asked = (req.get('if-none-match') ?? '').split(/\s*,\s*/);
  const gz = gzipTag(etag);
  return asked.some((tag) => {
    const strong = tag.startsWith('W/') ? tag.slice(2) : tag;
    return strong === etag || strong === gz;
  });
}

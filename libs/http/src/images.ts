import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { httpError } from './errors';

/*
 * Images callers upload inside a JSON body (an integration's icon, a site's logo): base64 or a
 * `data:image/…;base64,` address, decoded, recognised by their first bytes (PNG, JPEG, GIF or
 * WebP: SVG can carry script, so it is refused) and size-checked. They are served with the type
 * recognised here, `nosniff` and a sandboxing CSP, so uploaded bytes never run as script.
 */

/** An image ready to be stored: where it came from in the request (for messages), what it is. */
export interface DecodedImage {
  field: string;
  contentType: string;
  data: Buffer;
}

const SIGNATURES: Array<{ contentType: string; matches: (data: Buffer) => boolean }> = [
  { contentType: 'image/png', matches: (d) => d.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) },
  { contentType: 'image/jpeg', matches: (d) => d.length > 3 && d[0] === 0xff && d[1] === 0xd8 && d[2] === 0xff },
  { contentType: 'image/gif', matches: (d) => ['GIF87a', 'GIF89a'].includes(d.subarray(0, 6).toString('latin1')) },
  { contentType: 'image/webp', matches: (d) => d.subarray(0, 4).toString('latin1') === 'RIFF' && d.subarray(8, 12).toString('latin1') === 'WEBP' },
];

/** The media type of an image we serve, from its first bytes; undefined for anything else. */
export function sniffImage(data: Buffer): string | undefined {
  return SIGNATURES.find((signature) => signature.matches(data))?.contentType;
}

/** Base64, standard or URL-safe alphabet, padded or not. */
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const DATA_URL_PREFIX = /^data:image\/[\w.+-]+;base64,/;

/** Whether a field's value is an uploaded image (a `data:image/…;base64,` address) rather than a link. */
export const isImageDataUrl = (value: string): boolean => DATA_URL_PREFIX.test(value);

/**
 * The image a field carries (base64, or a `data:image/…;base64,` address); 400 naming the
 * field when it is not base64, is larger than `maxBytes`, or is not one of the types we serve.
 */
export function decodeImage(field: string, encoded: string, maxBytes: number): DecodedImage {
  const bad = (reason: string) => httpError.badRequest(`Invalid body: ${field}: ${reason}`);
  const text = encoded.replace(DATA_URL_PREFIX, '').replace(/\s+/g, '');
  // Decoded size from the text, before decoding anything large.
  if (Math.floor((text.length * 3) / 4) - 2 > maxBytes) throw bad(`the image is larger than ${maxBytes} bytes`);
  if (!BASE64.test(text) || text.length % 4 === 1) throw bad('not base64');
  const data = Buffer.from(text, 'base64');
  if (data.length === 0) throw bad('the image is empty');
  if (data.length > maxBytes) throw bad(`the image is larger than ${maxBytes} bytes`);
  const contentType = sniffImage(data);
  if (!contentType) throw bad('must be a PNG, JPEG, GIF or WebP image');
  return { field, contentType, data };
}

/** A stored image's id: a digest of its owner (an integration's name, a site's id) and its bytes, so the same image uploaded again is the same file and an address always serves the same bytes. */
export function imageId(owner: string, data: Buffer): string {
  return createHash('sha256').update(owner).update('\0').update(data).digest('base64url').slice(0, 32);
}

/** An image as stored: lean reads give the driver's Binary rather than a Buffer. */
export interface StoredImage {
  _id: string;
  contentType: string;
  data: Buffer | { buffer: Uint8Array };
}

/**
 * Answers a stored image (its id is a digest of its bytes, so its address serves the same bytes
 * for good): its recognised type, cached for good, never run or sniffed as anything else; a 304
 * to a revisit with its ETag.
 */
export function sendImage(req: Request, res: Response, image: StoredImage): void {
  const etag = `"${image._id}"`;
  res.set({
    'content-type': image.contentType,
    'cache-control': 'public, max-age=31536000, immutable',
    etag,
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
    'cross-origin-resource-policy': 'cross-origin',
  });
  if (req.get('if-none-match') === etag) {
    res.status(304).end();
    return;
  }
  res.send(Buffer.isBuffer(image.data) ? image.data : Buffer.from(image.data.buffer));
}

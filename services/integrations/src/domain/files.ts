import { createHash } from 'node:crypto';
import { apiUrl, httpError } from '@quire/http';
import type { IntegrationFileDoc } from '../db/models';
import type { IntegrationsContext } from './context';

/*
 * An integration's icon and preview images: sent base64-encoded with a publish, decoded,
 * recognised by their first bytes (PNG, JPEG, GIF or WebP: SVG can carry script, so it is
 * refused), size-checked, stored as IntegrationFile documents and served by a public route.
 * A file's id is a digest of the integration's name and the image, so republishing the same
 * image keeps its address, and an address always serves the same bytes (cached for good).
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

/**
 * The image a publish field carries (base64, or a `data:image/…;base64,` address); 400 naming
 * the field when it is not base64, is larger than INTEGRATION_IMAGE_MAX_BYTES, or is not one
 * of the image types we serve.
 */
export function decodeImage(ctx: Pick<IntegrationsContext, 'config'>, field: string, encoded: string): DecodedImage {
  const bad = (reason: string) => httpError.badRequest(`Invalid body: ${field}: ${reason}`);
  const max = ctx.config.INTEGRATION_IMAGE_MAX_BYTES;
  const text = encoded.replace(/^data:image\/[\w.+-]+;base64,/, '').replace(/\s+/g, '');
  // Decoded size from the text, before decoding anything large.
  if (Math.floor((text.length * 3) / 4) - 2 > max) throw bad(`the image is larger than ${max} bytes`);
  if (!BASE64.test(text) || text.length % 4 === 1) throw bad('not base64');
  const data = Buffer.from(text, 'base64');
  if (data.length === 0) throw bad('the image is empty');
  if (data.length > max) throw bad(`the image is larger than ${max} bytes`);
  const contentType = sniffImage(data);
  if (!contentType) throw bad('must be a PNG, JPEG, GIF or WebP image');
  return { field, contentType, data };
}

/** The id of an integration's file: a digest of the integration's name and the bytes. */
export function integrationFileId(integrationName: string, data: Buffer): string {
  return createHash('sha256').update(integrationName).update('\0').update(data).digest('base64url').slice(0, 32);
}

/** Stores the images of a publish (each once: same name and bytes, same file); their ids, in order. */
export async function storeImages(ctx: IntegrationsContext, integrationName: string, images: DecodedImage[]): Promise<string[]> {
  const ids: string[] = [];
  const now = new Date();
  for (const image of images) {
    const id = integrationFileId(integrationName, image.data);
    ids.push(id);
    await ctx.models.IntegrationFile.updateOne(
      { _id: id },
      { $setOnInsert: { integrationName, contentType: image.contentType, size: image.data.length, data: image.data, createdAt: now } },
      { upsert: true },
    );
  }
  return ids;
}

/** Removes the integration's files the current version no longer shows. */
export async function removeUnusedFiles(ctx: IntegrationsContext, integrationName: string, keep: readonly string[]): Promise<void> {
  await ctx.models.IntegrationFile.deleteMany({ integrationName, _id: { $nin: [...keep] } });
}

/** The file if it belongs to the integration (its bytes as a Buffer); 404 otherwise. */
export async function loadIntegrationFile(ctx: IntegrationsContext, integrationName: string, fileId: string): Promise<IntegrationFileDoc> {
  const file = await ctx.models.IntegrationFile.findOne({ _id: fileId, integrationName }).lean();
  if (!file) throw httpError.notFound('File');
  // Lean reads give the driver's Binary, not a Buffer.
  const data = file.data as unknown as Buffer | { buffer: Uint8Array };
  return { ...file, data: Buffer.isBuffer(data) ? data : Buffer.from(data.buffer) };
}

/** The public address of an integration's file. */
export function integrationFileUrl(baseUrl: string, integrationName: string, fileId: string): string {
  return apiUrl(baseUrl, `/v1/public/integrations/${encodeURIComponent(integrationName)}/files/${fileId}`);
}

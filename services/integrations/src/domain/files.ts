import { apiUrl, decodeImage, httpError, imageId, type DecodedImage } from '@quire/http';
import type { IntegrationFileDoc } from '../db/models';
import type { IntegrationsContext } from './context';

/*
 * An integration's icon and preview images: sent base64-encoded with a publish, decoded and
 * checked (libs/http images.ts), stored as IntegrationFile documents and served by a public route.
 * A file's id is a digest of the integration's name and the image, so republishing the same
 * image keeps its address, and an address always serves the same bytes (cached for good).
 */

/**
 * The image a publish field carries (libs/http decodeImage), at most
 * INTEGRATION_IMAGE_MAX_BYTES; 400 naming the field otherwise.
 */
export function decodeIntegrationImage(ctx: Pick<IntegrationsContext, 'config'>, field: string, encoded: string): DecodedImage {
  return decodeImage(field, encoded, ctx.config.INTEGRATION_IMAGE_MAX_BYTES);
}

/** The id of an integration's file: a digest of the integration's name and the bytes. */
export function integrationFileId(integrationName: string, data: Buffer): string {
  return imageId(integrationName, data);
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

/** The file if it belongs to the integration (to answer with libs/http sendImage); 404 otherwise. */
export async function loadIntegrationFile(ctx: IntegrationsContext, integrationName: string, fileId: string): Promise<IntegrationFileDoc> {
  const file = await ctx.models.IntegrationFile.findOne({ _id: fileId, integrationName }).lean();
  if (!file) throw httpError.notFound('File');
  return file;
}

/** The public address of an integration's file. */
export function integrationFileUrl(baseUrl: string, integrationName: string, fileId: string): string {
  return apiUrl(baseUrl, `/v1/public/integrations/${encodeURIComponent(integrationName)}/files/${fileId}`);
}

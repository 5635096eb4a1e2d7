import { createHmac, timingSafeEqual } from 'node:crypto';
import { httpError } from './errors';
import { filesBaseUrl, type BackendConfig } from '@quire/runtime';
import { apiUrl } from './urls';

/*
 * Download addresses that work without a token (files, PDFs): the gateway forwards
 * /v1/public/content/** unauthenticated, so the address itself carries the proof — an
 * HMAC over what it designates and its expiry, keyed by a key derived from the internal
 * secret (never the secret itself, which also signs principals). The addresses are on the files
 * origin (FILES_BASE_URL), where no cookie or token lives; the signature does not name the host.
 */

type SigningConfig = Pick<BackendConfig, 'INTERNAL_HMAC_SECRET' | 'PUBLIC_BASE_URL' | 'FILES_BASE_URL'>;

export const DOWNLOAD_URL_LIFETIME_MS = 60 * 60 * 1000;

function downloadKey(config: Pick<BackendConfig, 'INTERNAL_HMAC_SECRET'>): Buffer {
  return createHmac('sha256', config.INTERNAL_HMAC_SECRET).update('quire content download urls v1').digest();
}

function sign(config: Pick<BackendConfig, 'INTERNAL_HMAC_SECRET'>, parts: string[], expires: number): string {
  return createHmac('sha256', downloadKey(config))
    .update([...parts, String(expires)].join('\n'))
    .digest('base64url');
}

/** An absolute address on the files origin for `path`, signed over `parts` (the ids the path names). */
export function signedUrl(config: SigningConfig, path: string, parts: string[], query: Record<string, string> = {}, now = Date.now()): string {
  const expires = Math.floor((now + DOWNLOAD_URL_LIFETIME_MS) / 1000);
  const params = new URLSearchParams({ ...query, expires: String(expires), signature: sign(config, [path, ...parts], expires) });
  return `${apiUrl(filesBaseUrl(config), path)}?${params.toString()}`;
}

/** 403 unless the signature matches `parts` and has not expired. */
export function verifySignedUrl(
  config: Pick<BackendConfig, 'INTERNAL_HMAC_SECRET'>,
  path: string,
  parts: string[],
  query: { expires?: unknown; signature?: unknown },
  now = Date.now(),
): void {
  const expires = Number(query.expires);
  const signature = typeof query.signature === 'string' ? Buffer.from(query.signature) : Buffer.alloc(0);
  const expected = Buffer.from(sign(config, [path, ...parts], expires));
  if (!Number.isInteger(expires) || signature.length !== expected.length || !timingSafeEqual(signature, expected)) {
    throw httpError.forbidden('This download link is not valid');
  }
  if (expires * 1000 < now) throw httpError.forbidden('This download link has expired');
}

const revisionFilePath = (fileId: string) => `/v1/public/content/files/${fileId}`;

/** The public address of a file of a revision (content serves it; published sites send visitors to it). */
export function revisionFileUrl(config: SigningConfig, revisionId: string, fileId: string): string {
  return signedUrl(config, revisionFilePath(fileId), [revisionId], { revision: revisionId });
}

/** Checks a revisionFileUrl's query (403 when it is not valid or has expired). */
export function verifyRevisionFileUrl(
  config: Pick<BackendConfig, 'INTERNAL_HMAC_SECRET'>,
  fileId: string,
  query: { revision: string; expires?: unknown; signature?: unknown },
): void {
  verifySignedUrl(config, revisionFilePath(fileId), [query.revision], query);
}

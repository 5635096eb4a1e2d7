import { createHash } from 'node:crypto';
import type { Request, Response } from 'express';
import { sendBody, type Body } from '@quire/http';
import { filesBaseUrl, remembered } from '@quire/runtime';
import type { PublishingContext } from '../domain/context';
import { messageHtml, SITE_SCRIPT_HASH } from './html';
import { bareFrame, frameOf } from './pages';
import { restrictedSite, type SiteView } from './site-view';

/*
 * What every answer of a published site shares: its security and caching headers, text bodies
 * (gzipped for who takes them: libs/http caching.ts), ETags and the page that is not found.
 */

/**
 * Headers of every answer of a site. Its images may come from the files origin (FILES_BASE_URL),
 * where `~/files` sends them and uploaded logos are: named in img-src, whatever its scheme. Its
 * only script is the theme switch and the banner's close button (html.ts SITE_SCRIPT), allowed by
 * its digest.
 */
export function securityHeaders(config: PublishingContext['config']): Record<string, string> {
  const files = new URL(filesBaseUrl(config)).origin;
  return {
    'content-security-policy': `default-src 'none'; img-src 'self' https: data: ${files}; style-src 'self'; font-src 'self'; script-src ${SITE_SCRIPT_HASH}; form-action 'self'; base-uri 'none'; frame-ancestors 'self'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'strict-origin-when-cross-origin',
  };
}

/** How caches may keep what a site shows: only the visitor's own browser for a restricted site. */
export function cachingHeaders(view: Pick<SiteView, 'site'>): Record<string, string> {
  const restricted = restrictedSite(view.site);
  return {
    'cache-control': restricted ? 'private, no-cache' : 'public, max-age=0, must-revalidate',
    ...(restricted ? { vary: 'Cookie' } : {}),
    ...(view.site.visibility === 'public' ? {} : { 'x-robots-tag': 'noindex, nofollow' }),
  };
}

/** The content-type of a text body of ours. */
export const textType = (type: string): string => `${type}; charset=utf-8`;

/** Answers a text body of `type` (gzipped when the client takes it and it is long enough). */
export function sendText(req: Request, res: Response, status: number, type: string, body: string | Body, headers: Record<string, string> = {}): Promise<void> {
  return sendBody(req, res, status, { 'content-type': textType(type), ...headers }, body);
}

const tagOf = (text: string): string => `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
/** ETags of short inputs (a view's version and a path, mostly), kept: a revisit costs a lookup, not a hash. */
const shortTagOf = remembered(10_000, tagOf);
const SHORT_TAG_INPUT = 512;

/** A strong ETag made of everything an answer shows. */
export function etagOf(...parts: string[]): string {
  const text = parts.join('\n');
  return text.length > SHORT_TAG_INPUT ? tagOf(text) : shortTagOf(text);
}

/**
 * A page that is not found, in the site's frame when the visitor may see the site; else a
 * bare one that names nothing, under the address asked (its stylesheet and search are there).
 */
export function notFound(req: Request, res: Response, where: SiteView | string): Promise<void> {
  const frame =
    typeof where === 'string'
      ? bareFrame(where, 'Not found', 'Page not found')
      : frameOf(where, { title: `Page not found | ${where.site.title}`, noIndex: true });
  return sendText(req, res, 404, 'text/html', messageHtml(frame, 'Page not found', 'There is no page at this address.'), { 'cache-control': 'no-store' });
}

import type { Request, RequestHandler } from 'express';
import { HttpError } from '@quire/http';
import type { BaseConfig } from '@quire/runtime';
import { routeFor } from './routes';

/*
 * The files host (FILES_BASE_URL's, design.md §4): signed downloads are served there and only
 * there, so that no uploaded byte is ever answered on an origin that holds cookies or tokens (the
 * API's, the published sites' on /sites/). On it, nothing but the downloads answers: no page, no
 * API, no site. Without a files host of its own (FILES_BASE_URL unset, or on the API's host),
 * downloads stay on the API's host and nothing changes.
 */

/** The files host, lower-case, when it is not the API's own; else undefined. */
export function separateFilesHost(config: Pick<BaseConfig, 'PUBLIC_BASE_URL' | 'FILES_BASE_URL'>): string | undefined {
  if (!config.FILES_BASE_URL) return undefined;
  const files = new URL(config.FILES_BASE_URL).hostname.toLowerCase();
  return files === new URL(config.PUBLIC_BASE_URL).hostname.toLowerCase() ? undefined : files;
}

/** Whether `req` came for the files host. */
export function onFilesHost(req: Request, filesHost: string | undefined): boolean {
  return filesHost !== undefined && req.hostname.toLowerCase() === filesHost;
}

/** What the files host serves: content's signed downloads (/v1/public/content/**: files of revisions, PDFs) and sites' uploaded images (/v1/public/sites/**). */
function isDownload(path: string): boolean {
  const route = routeFor(path);
  return route?.public === true && (route.service === 'content' || route.service === 'publishing');
}

/**
 * 404 for anything but a download on the files host, and for a download on any other host (an
 * address signed for the files host must not open on the API's). Downloads on the files host go
 * on through the pipeline as on the API's host.
 */
export function filesHostGuard(filesHost: string | undefined): RequestHandler {
  return (req, _res, next) => {
    if (filesHost === undefined) return next();
    const path = req.originalUrl.split('?')[0];
    if (onFilesHost(req, filesHost) !== isDownload(path)) throw new HttpError(404, `No route for ${req.method} ${path}`);
    next();
  };
}

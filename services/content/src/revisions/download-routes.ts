import { route, sendBody, sendCached, verifyRevisionFileUrl, verifySignedUrl, type Route } from '@quire/http';
import { z } from 'zod';
import type { ContentContext } from '../kernel';
import { loadChangeRequestRevision } from './change-request-content';
import { renderedFileHeaders, uploadedFileHeaders } from './file-headers';
import { renderRevisionPdf } from './pdf';
import { findRevisionFile, loadFileBytes } from './revisions';

/*
 * Token-less downloads behind signed, expiring addresses (the gateway forwards
 * /v1/public/content/** without authentication): the signature is the only proof, so
 * no principal is read here, and the path and query are taken as they come (whatever is
 * not what was signed fails the signature: 403).
 */

const anything = z.string();
/** A query parameter as one string ('' when absent or repeated). */
const text = z
  .unknown()
  .optional()
  .transform((value) => (typeof value === 'string' ? value : ''));
/** The signature's own parameters (the signed-address checks read them). */
const signature = { expires: z.unknown().optional(), signature: z.unknown().optional() };

const fileParams = z.object({ fileId: anything });
const fileQuery = z.object({ revision: text, ...signature });
const pdfParams = z.object({ changeRequestId: anything, revisionId: anything });
const pdfQuery = z.object({
  page: text,
  only: z
    .unknown()
    .optional()
    .transform((value) => (value === '1' ? '1' : '0')),
  ...signature,
});

export function downloadRoutes(ctx: ContentContext): Route[] {
  return [
    route({
      method: 'get',
      path: '/v1/public/content/files/:fileId',
      summary: 'Download a file of a revision through a signed address',
      // An allowed image's own type inline, anything else as an application/octet-stream attachment (file-headers.ts).
      produces: '*/*',
      access: 'public',
      params: fileParams,
      query: fileQuery,
      handler: async ({ params: { fileId }, query, req, res }) => {
        verifyRevisionFileUrl(ctx.config, fileId, query);
        const file = await findRevisionFile(ctx, query.revision, fileId);
        // The bytes are content-addressed: their hash is a strong ETag, and a revisit is a 304 that does not read them.
        await sendCached(req, res, {
          headers: { ...uploadedFileHeaders(file), etag: `"${file.blobHash}"` },
          compressible: false,
          body: () => loadFileBytes(ctx, file),
        });
      },
    }),

    route({
      method: 'get',
      path: '/v1/public/content/pdf/:changeRequestId/:revisionId',
      summary: "Download a change request's content as PDF through a signed address",
      produces: 'application/pdf',
      access: 'public',
      params: pdfParams,
      query: pdfQuery,
      handler: async ({ params: { changeRequestId, revisionId }, query: { page, only, ...signed }, req, res }) => {
        verifySignedUrl(ctx.config, `/v1/public/content/pdf/${changeRequestId}/${revisionId}`, [page, only], signed);
        const { changeRequest, revision } = await loadChangeRequestRevision(ctx, changeRequestId, revisionId);
        const pdf = await renderRevisionPdf(ctx, revision, {
          title: changeRequest.subject || `Change request #${changeRequest.number}`,
          page: page || undefined,
          only: only === '1',
        });
        await sendBody(req, res, 200, renderedFileHeaders(`change-request-${changeRequest.number}.pdf`, 'application/pdf'), pdf);
      },
    }),
  ];
}

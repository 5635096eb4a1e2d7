import { Router } from 'express';
import type { ContentContext } from '../domain/context';
import { renderRevisionPdf } from '../domain/pdf';
import { loadChangeRequestRevision, loadRevisionFile } from '../domain/revisions';
import { verifySignedUrl } from '../domain/signed-urls';

/*
 * Token-less downloads behind signed, expiring addresses (the gateway forwards
 * /v1/public/content/** without authentication): the signature is the only proof, so
 * no principal is read here.
 */

function contentDisposition(kind: 'inline' | 'attachment', name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `${kind}; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

export function publicDownloadsRouter(ctx: ContentContext): Router {
  const router = Router();

  router.get('/v1/public/content/files/:fileId', async (req, res) => {
    const fileId = String(req.params.fileId);
    const revisionId = typeof req.query.revision === 'string' ? req.query.revision : '';
    verifySignedUrl(ctx.config, `/v1/public/content/files/${fileId}`, [revisionId], req.query);
    const { file, data } = await loadRevisionFile(ctx, revisionId, fileId);
    res.set({
      'content-type': file.contentType,
      'content-disposition': contentDisposition('inline', file.name),
      'cache-control': 'private, max-age=300',
      'x-content-type-options': 'nosniff',
    });
    res.send(data);
  });

  router.get('/v1/public/content/pdf/:changeRequestId/:revisionId', async (req, res) => {
    const changeRequestId = String(req.params.changeRequestId);
    const revisionId = String(req.params.revisionId);
    const page = typeof req.query.page === 'string' ? req.query.page : '';
    const only = req.query.only === '1' ? '1' : '0';
    verifySignedUrl(ctx.config, `/v1/public/content/pdf/${changeRequestId}/${revisionId}`, [page, only], req.query);
    const { changeRequest, revision } = await loadChangeRequestRevision(ctx, changeRequestId, revisionId);
    const pdf = await renderRevisionPdf(ctx, revision, {
      title: changeRequest.subject || `Change request #${changeRequest.number}`,
      page: page || undefined,
      only: only === '1',
    });
    res.set({
      'content-type': 'application/pdf',
      'content-disposition': contentDisposition('inline', `change-request-${changeRequest.number}.pdf`),
      'cache-control': 'private, max-age=300',
    });
    res.send(pdf);
  });
  return router;
}

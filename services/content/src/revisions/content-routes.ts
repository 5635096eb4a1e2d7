import { booleanQuery, httpError, listQuerySchema, parseInput, principalOf, idParam } from '@quire/http';
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { ChangeRequestDoc, RevisionDoc, RevisionPageDoc } from '../db/revisions';
import { loadSpaceAccess, type SpaceAccess } from '../domain/access';
import { findChangeRequest } from '../domain/change-requests';
import type { ContentContext } from '../domain/context';
import { linksOfRevision, spaceLinkReport } from '../domain/links';
import { descendantsOf, pagePaths, pagesByPath, treeOf } from '../domain/page-tree';
import { evaluateMarkdown } from '../domain/expressions';
import { computedPageBodies } from '../domain/openapi-pages';
import { loadBodies, loadRevision } from '../domain/revisions';
import { groupLinks, memoryPage, type LinkGroup, presentBacklink, presentLinkItem } from './link-presenter';
import { presentFile, presentPage, presentPageTree, presentRevision, type PagePresentation } from './revision-presenter';

/*
 * Reads of content, the same for three sources: the space's current revision
 * (/content), a change request's revision (/change-requests/{id}/content) and any
 * revision of the space (/revisions/{id}). Every source needs at least read access.
 */

export interface ContentSource {
  access: SpaceAccess;
  revision: RevisionDoc;
  changeRequest?: ChangeRequestDoc;
}

type SourceLoader = (ctx: ContentContext, req: Request) => Promise<ContentSource>;

export const spaceSource: SourceLoader = async (ctx, req) => {
  const access = await loadSpaceAccess(ctx, principalOf(req).userId, idParam(req, 'spaceId'));
  return { access, revision: await loadRevision(ctx, access.space.revisionId) };
};

export const changeRequestSource: SourceLoader = async (ctx, req) => {
  const access = await loadSpaceAccess(ctx, principalOf(req).userId, idParam(req, 'spaceId'));
  const changeRequest = await findChangeRequest(ctx, access.space._id, idParam(req, 'changeRequestId'));
  return { access, changeRequest, revision: await loadRevision(ctx, changeRequest.revisionId) };
};

const revisionSource: SourceLoader = async (ctx, req) => {
  const access = await loadSpaceAccess(ctx, principalOf(req).userId, idParam(req, 'spaceId'));
  const revision = await loadRevision(ctx, idParam(req, 'revisionId'));
  if (revision.spaceId !== access.space._id) throw httpError.notFound('Revision');
  return { access, revision };
};

// metadata=false omits git metadata; computed=false presents computed pages without generating them.
const revisionQuery = z.object({ metadata: booleanQuery.optional(), computed: booleanQuery.optional() });
// format: markdown (default) or document (a paragraph-level JSON document built from the markdown).
const pageQuery = revisionQuery.extend({
  format: z.enum(['markdown', 'document']).optional(),
  evaluated: z.union([booleanQuery, z.literal('deterministic-only')]).optional(),
});
type PageQuery = z.infer<typeof pageQuery>;
const linksQuery = listQuerySchema.extend({ status: z.enum(['ok', 'broken', 'in-app']).optional() });

function findPage(revision: RevisionDoc, pageId: string): RevisionPageDoc {
  const page = revision.pages.find((candidate) => candidate.id === pageId);
  if (!page) throw httpError.notFound('Page');
  return page;
}

/**
 * How `pages` of the source are presented for the query: their stored bodies, the
 * generated bodies of computed pages (computed, default true) and, on page reads, the
 * evaluation of their expressions (evaluated, default false).
 */
async function presentationFor(ctx: ContentContext, source: ContentSource, pages: readonly RevisionPageDoc[], query: PageQuery): Promise<PagePresentation> {
  const { revision } = source;
  const [bodies, computedBodies] = await Promise.all([
    loadBodies(ctx, pages),
    query.computed === false ? new Map<string, string>() : computedPageBodies(ctx, revision, pages),
  ]);
  const paths = pagePaths(revision.pages);
  const presentation: PagePresentation = {
    spaceId: revision.spaceId,
    revisionId: revision._id,
    paths,
    bodies,
    config: ctx.config,
    format: query.format,
    metadata: query.metadata ?? true,
    computedBodies,
  };
  const mode = query.evaluated ?? false;
  if (mode !== false) {
    const now = new Date().toISOString();
    const space = { title: source.access.space.title, vars: revision.variables ?? {} };
    presentation.rewrite = (page, markdown) =>
      evaluateMarkdown(markdown, { space, page: { title: page.title, path: paths.get(page.id) ?? page.slug, vars: page.variables ?? {} }, now }, mode);
  }
  return presentation;
}

/** A page with its sub-pages, bodies included (only the subtree's bodies are read). */
async function pageResponse(ctx: ContentContext, source: ContentSource, page: RevisionPageDoc, query: PageQuery) {
  const tree = treeOf(source.revision.pages);
  const ids = new Set([page.id, ...descendantsOf(tree, page.id)]);
  const presentation = await presentationFor(
    ctx,
    source,
    source.revision.pages.filter((p) => ids.has(p.id)),
    query,
  );
  return presentPage(tree, page, presentation);
}

/** Registers the content reads under `prefix` for one kind of source. */
function contentReads(router: Router, ctx: ContentContext, prefix: string, load: SourceLoader): void {
  router.get(prefix, async (req, res) => {
    const query = parseInput(revisionQuery, req.query, 'query');
    const { revision } = await load(ctx, req);
    const [bodies, computedBodies] = await Promise.all([
      loadBodies(ctx, revision.pages),
      query.computed === false ? undefined : computedPageBodies(ctx, revision, revision.pages),
    ]);
    res.json(presentRevision(revision, { config: ctx.config, bodies, metadata: query.metadata ?? true, computedBodies }));
  });

  router.get(`${prefix}/pages`, async (req, res) => {
    const query = parseInput(revisionQuery, req.query, 'query');
    const source = await load(ctx, req);
    const presentation = await presentationFor(ctx, source, source.revision.pages, query);
    res.json({ pages: presentPageTree(treeOf(source.revision.pages), null, presentation) });
  });

  // Files are never computed: `computed` is accepted and changes nothing.
  router.get(`${prefix}/files`, async (req, res) => {
    const query = parseInput(listQuerySchema.extend(revisionQuery.shape), req.query, 'query');
    const { revision } = await load(ctx, req);
    const files = [...revision.files].sort((a, b) => (a.id < b.id ? -1 : 1));
    res.json(
      memoryPage(
        files,
        (file) => file.id,
        query,
        (file) => presentFile(file, revision._id, ctx.config, query.metadata ?? true),
      ),
    );
  });

  router.get(`${prefix}/files/:fileId`, async (req, res) => {
    const query = parseInput(revisionQuery, req.query, 'query');
    const { revision } = await load(ctx, req);
    const file = revision.files.find((candidate) => candidate.id === req.params.fileId);
    if (!file) throw httpError.notFound('File');
    res.json(presentFile(file, revision._id, ctx.config, query.metadata ?? true));
  });

  router.get(`${prefix}/files/:fileId/backlinks`, async (req, res) => {
    const query = parseInput(listQuerySchema, req.query, 'query');
    const { access, revision } = await load(ctx, req);
    if (!revision.files.some((file) => file.id === req.params.fileId)) throw httpError.notFound('File');
    res.json(await backlinks(ctx, access, revision, 'file', idParam(req, 'fileId'), query));
  });

  router.get(`${prefix}/page/:pageId`, async (req, res) => {
    const query = parseInput(pageQuery, req.query, 'query');
    const source = await load(ctx, req);
    res.json(await pageResponse(ctx, source, findPage(source.revision, idParam(req, 'pageId')), query));
  });

  router.get(`${prefix}/page/:pageId/links`, async (req, res) => {
    const query = parseInput(linksQuery, req.query, 'query');
    const { access, revision } = await load(ctx, req);
    const page = findPage(revision, idParam(req, 'pageId'));
    const links = (await linksOfRevision(ctx, revision)).filter((link) => link.pageId === page.id);
    res.json(linkList(groupLinks(links), access.space._id, query));
  });

  router.get(`${prefix}/page/:pageId/backlinks`, async (req, res) => {
    const query = parseInput(listQuerySchema, req.query, 'query');
    const { access, revision } = await load(ctx, req);
    const page = findPage(revision, idParam(req, 'pageId'));
    res.json(await backlinks(ctx, access, revision, 'page', page.id, query));
  });

  router.get(`${prefix}/path/*pagePath`, async (req, res) => {
    const query = parseInput(pageQuery, req.query, 'query');
    const source = await load(ctx, req);
    const raw = req.params.pagePath as unknown;
    const path = (Array.isArray(raw) ? raw.join('/') : String(raw)).replace(/^\/+|\/+$/g, '');
    const pageId = pagesByPath(source.revision.pages).get(path);
    if (!pageId) throw httpError.notFound('Page');
    res.json(await pageResponse(ctx, source, findPage(source.revision, pageId), query));
  });
}

function linkList(groups: LinkGroup[], spaceId: string, query: z.infer<typeof linksQuery>) {
  const listed = groups.filter((group) => !query.status || group.status === query.status);
  return memoryPage(
    listed,
    (group) => group.key,
    query,
    (group) => presentLinkItem(group, spaceId),
  );
}

async function backlinks(
  ctx: ContentContext,
  access: SpaceAccess,
  revision: RevisionDoc,
  kind: 'page' | 'file',
  target: string,
  query: { limit: number; page?: string },
) {
  const links = await linksOfRevision(ctx, revision);
  const sources = [...new Set(links.filter((link) => link.kind === kind && link.target === target).map((link) => link.pageId))].sort();
  const context = { organizationId: access.space.organizationId, spaceId: access.space._id, revisionId: revision._id };
  return memoryPage(
    sources,
    (id) => id,
    query,
    (id) => presentBacklink(id, context),
  );
}

export function contentReadsRouter(ctx: ContentContext): Router {
  const router = Router();
  contentReads(router, ctx, '/v1/spaces/:spaceId/content', spaceSource);
  contentReads(router, ctx, '/v1/spaces/:spaceId/change-requests/:changeRequestId/content', changeRequestSource);
  contentReads(router, ctx, '/v1/spaces/:spaceId/revisions/:revisionId', revisionSource);

  router.get('/v1/spaces/:spaceId/links', async (req, res) => {
    const query = parseInput(linksQuery, req.query, 'query');
    const { access, revision } = await spaceSource(ctx, req);
    const { groups, stats } = await spaceLinkReport(ctx, access.space._id, revision);
    res.json({ ...linkList(groups, access.space._id, query), stats });
  });
  return router;
}

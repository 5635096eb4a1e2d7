import { contentBacklink, contentLinks, list, revision as revisionObject, revisionFile, revisionPage, revisionPages } from '@quire/contract';
import { byKey, httpError, listQuerySchema, memoryPage, route, type Route } from '@quire/http';
import { z } from 'zod';
import { loadSpaceAccess, type SpaceAccess } from '../access';
import { changeRequestParams, spaceParams, type ContentContext } from '../kernel';
import { findChangeRequest } from './change-request-content';
import {
  fileListQuery,
  fileParam,
  linksQuery,
  pageParam,
  pagePathParam,
  pageQuery,
  revisionParams,
  revisionQuery,
  type LinksQuery,
  type PageQuery,
} from './content-schemas';
import { revisionEvaluator } from './expressions';
import { linksOfRevision, spaceLinkReport, type LinkGroup } from './links';
import { presentBacklink, presentLinkItem } from './link-presenter';
import { computedPageBodies } from './openapi-pages';
import { descendantsOf, pagePaths, pagesByPath, treeOf } from './page-tree';
import { presentFile, presentPage, presentPageTree, presentRevision, type PagePresentation } from './revision-presenter';
import type { ChangeRequestDoc, RevisionDoc, RevisionPageDoc } from './revision-store';
import { loadBodies, loadRevision } from './revisions';

/*
 * Reads of content, the same for three sources: the space's current revision
 * (/content), a change request's revision (/change-requests/{id}/content) and any
 * revision of the space (/revisions/{id}). Every source needs at least read access.
 */

interface ContentSource {
  access: SpaceAccess;
  revision: RevisionDoc;
  changeRequest?: ChangeRequestDoc;
}

/** Where reads under `prefix` take their revision from; `of` names it in the summaries. */
interface SourceKind {
  prefix: string;
  of: string;
  params: Record<string, typeof spaceParams.shape.spaceId>;
  load: (ctx: ContentContext, userId: string, params: Record<string, string>) => Promise<ContentSource>;
}

const spaceSource: SourceKind['load'] = async (ctx, userId, params) => {
  const access = await loadSpaceAccess(ctx, userId, params.spaceId);
  return { access, revision: await loadRevision(ctx, access.space.revisionId) };
};

const changeRequestSource: SourceKind['load'] = async (ctx, userId, params) => {
  const access = await loadSpaceAccess(ctx, userId, params.spaceId);
  const changeRequest = await findChangeRequest(ctx, access.space._id, params.changeRequestId);
  return { access, changeRequest, revision: await loadRevision(ctx, changeRequest.revisionId) };
};

const revisionSource: SourceKind['load'] = async (ctx, userId, params) => {
  const access = await loadSpaceAccess(ctx, userId, params.spaceId);
  const revision = await loadRevision(ctx, params.revisionId);
  if (revision.spaceId !== access.space._id) throw httpError.notFound('Revision');
  return { access, revision };
};

const SOURCES: SourceKind[] = [
  { prefix: '/v1/spaces/:spaceId/content', of: "the space's content", params: spaceParams.shape, load: spaceSource },
  {
    prefix: '/v1/spaces/:spaceId/change-requests/:changeRequestId/content',
    of: "a change request's content",
    params: changeRequestParams.shape,
    load: changeRequestSource,
  },
  { prefix: '/v1/spaces/:spaceId/revisions/:revisionId', of: 'a revision of the space', params: revisionParams.shape, load: revisionSource },
];

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
  if (mode !== false) presentation.rewrite = revisionEvaluator(source.access.space.title, revision, paths, mode);
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

function linkList(groups: LinkGroup[], spaceId: string, query: LinksQuery) {
  const listed = groups.filter((group) => !query.status || group.status === query.status);
  return memoryPage(
    listed,
    byKey((group) => group.key),
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
    byKey((id) => id),
    query,
    (id) => presentBacklink(id, context),
  );
}

/** The content reads under one source's prefix. */
function sourceRoutes(ctx: ContentContext, { prefix, of, params, load }: SourceKind): Route[] {
  return [
    route({
      method: 'get',
      path: prefix,
      summary: `Get ${of} as a revision`,
      response: revisionObject,
      params: z.object(params),
      query: revisionQuery,
      handler: async ({ caller, params, query }) => {
        const { revision } = await load(ctx, caller.userId, params);
        const [bodies, computedBodies] = await Promise.all([
          loadBodies(ctx, revision.pages),
          query.computed === false ? undefined : computedPageBodies(ctx, revision, revision.pages),
        ]);
        return presentRevision(revision, { config: ctx.config, bodies, metadata: query.metadata ?? true, computedBodies });
      },
    }),

    route({
      method: 'get',
      path: `${prefix}/pages`,
      summary: `List the pages of ${of}`,
      response: revisionPages,
      params: z.object(params),
      query: revisionQuery,
      handler: async ({ caller, params, query }) => {
        const source = await load(ctx, caller.userId, params);
        const presentation = await presentationFor(ctx, source, source.revision.pages, query);
        return { pages: presentPageTree(treeOf(source.revision.pages), null, presentation) };
      },
    }),

    route({
      method: 'get',
      path: `${prefix}/files`,
      summary: `List the files of ${of}`,
      response: list(revisionFile),
      params: z.object(params),
      query: fileListQuery,
      handler: async ({ caller, params, query }) => {
        const { revision } = await load(ctx, caller.userId, params);
        const files = [...revision.files].sort((a, b) => (a.id < b.id ? -1 : 1));
        return memoryPage(
          files,
          byKey((file) => file.id),
          query,
          (file) => presentFile(file, { revisionId: revision._id, config: ctx.config, metadata: query.metadata ?? true }),
        );
      },
    }),

    route({
      method: 'get',
      path: `${prefix}/files/:fileId`,
      summary: `Get a file of ${of}`,
      response: revisionFile,
      params: z.object({ ...params, ...fileParam }),
      query: revisionQuery,
      handler: async ({ caller, params, query }) => {
        const { revision } = await load(ctx, caller.userId, params);
        const file = revision.files.find((candidate) => candidate.id === params.fileId);
        if (!file) throw httpError.notFound('File');
        return presentFile(file, { revisionId: revision._id, config: ctx.config, metadata: query.metadata ?? true });
      },
    }),

    route({
      method: 'get',
      path: `${prefix}/files/:fileId/backlinks`,
      summary: `List the pages of ${of} that link to a file`,
      response: list(contentBacklink),
      params: z.object({ ...params, ...fileParam }),
      query: listQuerySchema,
      handler: async ({ caller, params, query }) => {
        const { access, revision } = await load(ctx, caller.userId, params);
        if (!revision.files.some((file) => file.id === params.fileId)) throw httpError.notFound('File');
        return backlinks(ctx, access, revision, 'file', params.fileId, query);
      },
    }),

    route({
      method: 'get',
      path: `${prefix}/page/:pageId`,
      summary: `Get a page of ${of} with its sub-pages`,
      response: revisionPage,
      params: z.object({ ...params, ...pageParam }),
      query: pageQuery,
      handler: async ({ caller, params, query }) => {
        const source = await load(ctx, caller.userId, params);
        return pageResponse(ctx, source, findPage(source.revision, params.pageId), query);
      },
    }),

    route({
      method: 'get',
      path: `${prefix}/page/:pageId/links`,
      summary: `List the links of a page of ${of}`,
      response: contentLinks,
      params: z.object({ ...params, ...pageParam }),
      query: linksQuery,
      handler: async ({ caller, params, query }) => {
        const { access, revision } = await load(ctx, caller.userId, params);
        const page = findPage(revision, params.pageId);
        const { groups, stats } = await spaceLinkReport(ctx, access.space._id, revision, { pageId: page.id });
        return { ...linkList(groups, access.space._id, query), stats };
      },
    }),

    route({
      method: 'get',
      path: `${prefix}/page/:pageId/backlinks`,
      summary: `List the pages of ${of} that link to a page`,
      response: list(contentBacklink),
      params: z.object({ ...params, ...pageParam }),
      query: listQuerySchema,
      handler: async ({ caller, params, query }) => {
        const { access, revision } = await load(ctx, caller.userId, params);
        const page = findPage(revision, params.pageId);
        return backlinks(ctx, access, revision, 'page', page.id, query);
      },
    }),

    route({
      method: 'get',
      path: `${prefix}/path/*pagePath`,
      summary: `Get a page of ${of} by its path`,
      response: revisionPage,
      params: z.object({ ...params, ...pagePathParam }),
      query: pageQuery,
      handler: async ({ caller, params, query }) => {
        const source = await load(ctx, caller.userId, params);
        const pageId = pagesByPath(source.revision.pages).get(params.pagePath);
        if (!pageId) throw httpError.notFound('Page');
        return pageResponse(ctx, source, findPage(source.revision, pageId), query);
      },
    }),
  ];
}

/** Reads of a space's content, of its change requests' and of its revisions, and the space's link report. */
export function contentReadRoutes(ctx: ContentContext): Route[] {
  return [
    ...SOURCES.flatMap((source) => sourceRoutes(ctx, source)),

    route({
      method: 'get',
      path: '/v1/spaces/:spaceId/links',
      summary: "List the links of the space's content, with broken-link counts",
      response: contentLinks,
      params: spaceParams,
      query: linksQuery,
      handler: async ({ caller, params, query }) => {
        const { access, revision } = await spaceSource(ctx, caller.userId, params);
        const { groups, stats } = await spaceLinkReport(ctx, access.space._id, revision);
        return { ...linkList(groups, access.space._id, query), stats };
      },
    }),
  ];
}

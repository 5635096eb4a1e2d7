import { apiUrl, decodeCursor, encodeCursor, HttpError, httpError, listEnvelope, listQuerySchema, parseInput, principalOf } from '@quire/http';
import type { BackendConfig } from '@quire/runtime';
import { Router } from 'express';
import { z } from 'zod';
import type { RevisionDoc } from '../db/revisions';
import { loadSpaceAccess } from '../domain/access';
import type { ContentContext } from '../domain/context';
import { loadRevision } from '../domain/revisions';
import { searchRevision, type PageHit } from '../domain/search';

/*
 * GET /v1/spaces/{spaceId}/search (OpenAPI searchSpaceContent): the current revision's
 * pages ranked for `query`, as SearchPageResult items with their SearchSectionResult
 * sections. `next.page` continues in the revision the first page was searched in, so
 * ranks stay consistent while the space moves on.
 */

const searchQuery = listQuerySchema.extend({ query: z.string().trim().min(1).max(512) });

const CURSOR_KEY = 'search';

function decodeSearchCursor(page: string): { revisionId: string; offset: number } {
  const { value, id } = decodeCursor(CURSOR_KEY, page);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw httpError.badRequest('Invalid query: page: not a cursor of this list');
  return { revisionId: id, offset: value };
}

/** The current revision, or the one a cursor continues in (it must be one of this space's). */
async function searchedRevision(ctx: ContentContext, space: { _id: string; revisionId: string }, cursor?: { revisionId: string }): Promise<RevisionDoc> {
  if (!cursor) return loadRevision(ctx, space.revisionId);
  const revision = await loadRevision(ctx, cursor.revisionId).catch((error: unknown) => {
    if (error instanceof HttpError && error.status === 404) return null;
    throw error;
  });
  if (!revision || revision.spaceId !== space._id) throw httpError.badRequest('Invalid query: page: not a cursor of this list');
  return revision;
}

function presentHit(hit: PageHit, rank: number, context: { config: Pick<BackendConfig, 'PUBLIC_BASE_URL'>; spaceId: string; revisionId: string }) {
  const pageUrl = apiUrl(context.config.PUBLIC_BASE_URL, `/s/${context.spaceId}/~/revisions/${context.revisionId}/${hit.page.path}`);
  return {
    id: hit.page.id,
    title: hit.page.title,
    description: hit.page.description,
    path: hit.page.path,
    score: hit.score,
    rank,
    resultType: hit.resultType,
    sections: hit.sections.map(({ section, score, resultType, body }) => ({
      id: section.anchor ?? hit.page.id,
      title: section.anchor === null ? hit.page.title : section.heading,
      path: section.anchor === null ? hit.page.path : `${hit.page.path}#${section.anchor}`,
      body,
      score,
      resultType,
      urls: { app: section.anchor === null ? pageUrl : `${pageUrl}#${encodeURIComponent(section.anchor)}` },
    })),
    ancestors: hit.ancestors.map((title) => ({ title })),
    urls: { app: pageUrl },
  };
}

export function searchRouter(ctx: ContentContext): Router {
  const router = Router();

  router.get('/v1/spaces/:spaceId/search', async (req, res) => {
    const query = parseInput(searchQuery, req.query, 'query');
    const cursor = query.page ? decodeSearchCursor(query.page) : undefined;
    const access = await loadSpaceAccess(ctx, principalOf(req).userId, String(req.params.spaceId));
    const revision = await searchedRevision(ctx, access.space, cursor);
    const offset = cursor?.offset ?? 0;
    const { hits, count } = await searchRevision(ctx, revision, query.query, { offset, limit: query.limit });
    const context = { config: ctx.config, spaceId: access.space._id, revisionId: revision._id };
    const next = offset + hits.length < count ? encodeCursor(CURSOR_KEY, offset + hits.length, revision._id) : undefined;
    res.json(
      listEnvelope(
        hits.map((hit, index) => presentHit(hit, offset + index + 1, context)),
        count,
        next,
      ),
    );
  });

  return router;
}

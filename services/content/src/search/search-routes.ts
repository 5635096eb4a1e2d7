import { list, searchPageResult } from '@quire/contract';
import { decodeCursor, encodeCursor, httpError, listEnvelope, route, type Route } from '@quire/http';
import { loadSpaceAccess } from '../access';
import { spaceParams, type ContentContext } from '../kernel';
import { searchedRevision, searchRevision } from './search';
import { presentHit } from './search-presenter';
import { searchQuery } from './search-schemas';

/*
 * GET /v1/spaces/{spaceId}/search (OpenAPI searchSpaceContent): the current revision's
 * pages ranked for `query`, as SearchPageResult items with their SearchSectionResult
 * sections. `next.page` continues in the revision the first page was searched in, so
 * ranks stay consistent while the space moves on.
 */

const CURSOR_KEY = 'search';

function decodeSearchCursor(page: string): { revisionId: string; offset: number } {
  const { value, id } = decodeCursor(CURSOR_KEY, page);
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw httpError.badRequest('Invalid query: page: not a cursor of this list');
  return { revisionId: id, offset: value };
}

export function searchRoutes(ctx: ContentContext): Route[] {
  return [
    route({
      method: 'get',
      path: '/v1/spaces/:spaceId/search',
      summary: "Search the space's content",
      response: list(searchPageResult),
      params: spaceParams,
      query: searchQuery,
      handler: async ({ caller, params, query }) => {
        const cursor = query.page ? decodeSearchCursor(query.page) : undefined;
        const access = await loadSpaceAccess(ctx, caller.userId, params.spaceId);
        const revision = await searchedRevision(ctx, access.space, cursor);
        const offset = cursor?.offset ?? 0;
        const { hits, count } = await searchRevision(ctx, revision, query.query, { offset, limit: query.limit });
        const context = { config: ctx.config, spaceId: access.space._id, revisionId: revision._id };
        const next = offset + hits.length < count ? encodeCursor(CURSOR_KEY, offset + hits.length, revision._id) : undefined;
        return listEnvelope(
          hits.map((hit, index) => presentHit(hit, { ...context, rank: offset + index + 1 })),
          count,
          next,
        );
      },
    }),
  ];
}

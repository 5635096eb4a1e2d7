/*
 * Full-text search of a space's content: the per-revision index (made, derived from a
 * parent's, stored), ranking, the warm-up on content events and the search route. Imports
 * the kernel, access and revisions.
 */
export { subscribeSearchWarmup } from './search-events';
export { searchRoutes } from './search-routes';
// For content's gRPC server (SearchSpaceContent): the REST search's ranking and its query rule.
export { searchRevision, sectionTitle, type PageHit } from './search';
// The module's caches, for the service's composition (ctx.caches).
export { searchRankingCaches } from './search';
export { searchIndexCaches } from './search-index';
export { searchQuery } from './search-schemas';
export { searchConfigSchema } from './search-settings';
export { purgeSpaceSearchIndexes, searchModelDefinitions } from './search-store';

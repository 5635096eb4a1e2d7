/*
 * Full-text search of a space's content: the per-revision index (made, derived from a
 * parent's, stored), ranking, the warm-up on content events and the search route. Imports
 * the kernel, access and revisions.
 */
export { subscribeSearchWarmup } from './search-events';
export { searchRoutes } from './search-routes';
// For content's gRPC server (SearchSpaceContent): the REST search's ranking and its query rule.
export { searchRevision, sectionTitle, type PageHit } from './search';
export { searchQuery } from './search-schemas';
export { searchConfigSchema } from './search-settings';
export { FORMAT, purgeSpaceSearchIndexes, readIndexData, searchModelDefinitions, storeIndexData } from './search-store';
// For the end-to-end suite, which checks stored indexes and scores against a fresh MiniSearch.
export { settleAverages } from './search-engine';
export { markdownSections } from './search-sections';

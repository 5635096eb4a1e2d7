/*
 * Structure: spaces and collections of an organization (create, list, move, transfer,
 * delete and restore, purge after the retention) with their routes and presenter. Imports
 * the kernel, access and revisions; what the modules above keep of a space (its Git sync
 * state to show, its comments, indexes… to purge) is passed in by the service.
 */
export { collectionRoutes } from './collection-routes';
export { spaceRoutes, type SpaceGitSyncs } from './space-routes';
export { closeSpacePurgeQueue, purgeTrashedSpace, spaceLifecycleConfigSchema, startSpacePurgeWorker, type FeatureDataPurge } from './space-lifecycle';
export { createSpaceForService, findCachedSpaces, findSpaces, listVisibleSpaces, type ServiceSpaceInput } from './spaces';
export { serviceSpaceRequest } from './structure-schemas';
export { presentSpace, type SpaceGitSync } from './structure-presenter';

/*
 * The kernel: what every module of the content service needs (the context and its model
 * registry, the space and collection documents, write locks, a bounded cache, the users
 * responses show, shared path parameters). It imports no other module.
 */
export type { ContentCaches, ContentContext, ContentModels } from './context';
export { withLock, spaceLock, changeRequestLock, collectionLock, lockConfigSchema } from './locks';
export { announce } from './announce';
export { structureModelDefinitions, type CollectionDoc, type DefaultLevel, type MergeRulesDoc, type SpaceDoc, type SpaceVisibility } from './structure-store';
export { loadUsers, viewerWithOrgRole, type PresentedUser, type UserViewer } from './users';
export { changeRequestParams, collectionParams, organizationParams, spaceParams } from './path-schemas';

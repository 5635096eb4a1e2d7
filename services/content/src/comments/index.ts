/*
 * Comments on a space's content or on a change request, with their replies and reactions.
 * Imports the kernel, access and revisions.
 */
export { commentRoutes } from './comment-routes';
export { commentModelDefinitions, purgeSpaceComments } from './comment-store';

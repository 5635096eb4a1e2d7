/*
 * Change requests: numbered per space, each with its own line of revisions; their status,
 * reviews and merge rules; the three-way merge into the space and back. Imports the
 * kernel, access, revisions and templates (a change request may start from a template).
 */
export { changeRequestRoutes } from './change-request-routes';

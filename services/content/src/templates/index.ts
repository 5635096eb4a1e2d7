/*
 * Built-in content templates: the changes each one makes, and applying one to a space's
 * content or to a change request. Imports the kernel, access and revisions.
 */
export { templateRoutes } from './template-routes';
export { spaceTemplate } from './template-schemas';
export { templateChanges } from './templates';

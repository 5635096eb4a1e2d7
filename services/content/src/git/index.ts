/*
 * Git sync: import and export of a space's content with a Git repository (queued jobs run
 * by the git worker), the space's sync state and the git routes. Imports the kernel,
 * access and revisions.
 */
export { gitRoutes } from './git-routes';
export { presentGitSync } from './git-presenter';
export { gitModelDefinitions, type GitSyncSummary } from './git-store';
export { gitConfigSchema } from './settings';
export { loadGitSyncSummaries, loadSpacesGitSyncs, purgeSpaceGitSync } from './state';
export { startGitWorker } from './worker';

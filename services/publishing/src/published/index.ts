/*
 * Published sites served as web pages to their audience: addresses, audiences, the visitor's
 * view of the structure, rendering, search, and what crawlers and agents read. Imports the
 * domain; nothing imports it but the service's routes, its gRPC server (the gateway's views)
 * and its composition (the caches).
 */
import { addressCaches } from './address';
import { pathCaches } from './paths';
import { siteViewCaches } from './site-view';
import { spaceContentCaches } from './space-content';

export { publishedSiteRoutes } from './routes';
export { subscribeToAddressChanges } from './address-history';
export { flushSiteViews, recordSiteViews } from './site-viewed';

/** The caches published sites keep (PublishingCaches), for startBackendService. */
export const publishedSiteCaches = { ...addressCaches, ...siteViewCaches, ...spaceContentCaches, ...pathCaches };

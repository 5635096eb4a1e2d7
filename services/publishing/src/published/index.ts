/*
 * Published sites served as web pages to their audience: addresses, audiences, the visitor's
 * view of the structure, rendering, search, and what crawlers and agents read. Imports the
 * domain; nothing imports it but the service's routes.
 */
export { publishedSiteRoutes } from './routes';

/**
 * The objects Quire answers with (spec "Resources and their fields"; GitBook's document where
 * the spec is silent), as zod schemas. Routes name them as their `response`: the API document
 * publishes them, and the end-to-end suites check every answer against that document.
 */
export { timestamp, url, role, permissions, urls, list, document } from './common';
export { user, member } from './users';
export { mergeRules, gitSync, space, collection, language, LANGUAGES } from './spaces';
export * from './organizations';
export * from './sites';
export * from './customization';
export * from './revisions';
export * from './change-requests';
export * from './comments';
export * from './access';
export * from './search';
export * from './git';
export * from './integrations';
export * from './installations';
export * from './conversations';
export * from './translations';

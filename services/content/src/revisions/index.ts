/*
 * Revisions: the immutable content of spaces and change requests. Storage of revisions,
 * page bodies and file blobs; the page tree; content changes; links, expressions, computed
 * OpenAPI pages, PDF and signed download addresses; what a space's lifecycle needs of its
 * content; and the content reads. Imports the kernel and access.
 */
export {
  revisionModelDefinitions,
  changeRequestDescriptionJson,
  type ChangeRequestDescription,
  type ChangeRequestDoc,
  type ChangeRequestStatus,
  type FileBlobDoc,
  type ReviewDoc,
  type RevisionDoc,
  type RevisionFileDoc,
  type RevisionGitDoc,
  type RevisionPageDoc,
  type CoverImage,
  type PageCover,
} from './revision-store';
export {
  assignPacks,
  contentHash,
  discardRevision,
  EMPTY_BODY_HASH,
  loadBodies,
  loadRevision,
  PAGE_FLAGS,
  pageFlag,
  revisionCaches,
  setPageFlag,
  storeBodies,
  writeBuiltRevision,
  writeRevision,
  type BuiltContent,
  type PageFlag,
} from './revisions';
export { PAGE_LAYOUT_OPTIONS, pageLayoutOf, sameLayout, setPageLayout, type PageLayoutOption } from './page-layout';
export { coverKey, setCover, setCoverKey } from './page-cover';
export { findChangeRequest, writeChangeRequestContent } from './change-request-content';
export {
  applyChanges,
  MAX_FILE_BYTES,
  MAX_VARIABLE_NAME,
  MAX_VARIABLE_VALUE,
  MAX_VARIABLES,
  VARIABLE_NAME,
  VARIABLE_NAME_RULE,
  type ChangeResult,
  type ContentChange,
} from './content-changes';
export { newBrokenLinks } from './links';
export { childrenOf, duplicateSlugs, flattenTree, pagePaths, previousSiblings, treeOf, type PageTree } from './page-tree';
export { hasModels, loadSpec, MAX_TAG_PAGES, OPENAPI_COMPUTED_TYPE, openApiCaches, overviewMarkdown, specFileOf, specSlugOf, specTags } from './openapi-pages';
export {
  commitSpaceRevision,
  copyRevisionToSpace,
  createInitialRevision,
  findSpaceRevision,
  publishContentUpdated,
  purgeSpaceContent,
  readSpaceContent,
  writeSpacePages,
  type SpaceContent,
} from './space-content';
export { pageSlug, writeSpacePagesRequest } from './content-schemas';
export { markdownToDocument, presentFile } from './revision-presenter';
export { contentReadRoutes } from './content-routes';
export { downloadRoutes } from './download-routes';

import type { LinkGroup } from './links';

/*
 * Content link items (spec "Content link item"): one item per distinct target, with every
 * page that links to it as a location. Lists of computed items page by keyset on a stable
 * sort key (never by offset; libs/http memoryPage), like the stored lists.
 */

export function presentLinkItem(group: LinkGroup, spaceId: string) {
  const targetReference =
    group.target && group.kind === 'page'
      ? { kind: 'page' as const, page: group.target, space: spaceId }
      : group.target && group.kind === 'file'
        ? { kind: 'file' as const, file: group.target }
        : { kind: 'url' as const, url: group.href };
  return {
    status: group.status,
    relation: 'reference' as const,
    targetReference,
    locationReferences: group.pages.map((page) => ({ kind: 'page' as const, page, space: spaceId })),
  };
}

/** Backlink item: where (which page of which revision of which space) a link to the target sits. */
export function presentBacklink(sourcePage: string, context: { organizationId: string; spaceId: string; revisionId: string }) {
  return {
    kind: 'page' as const,
    organization: context.organizationId,
    space: context.spaceId,
    versionContext: { type: 'revision' as const, revision: context.revisionId },
    page: sourcePage,
  };
}

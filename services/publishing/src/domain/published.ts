import type { SiteDoc } from '../db/models';
import { isPresentable, presentChildren, presentRootSection, presentSite, structureView, type StructureView } from '../http/presenters';
import type { OrgAccess } from './access';
import { conditionHolds, type VisitorClaims } from './conditions';
import type { PublishingContext } from './context';
import { lookUpSpaces } from './spaces';
import { loadStructure } from './structure';

/**
 * The site's structure with its spaces as the caller sees them, fetched in one
 * BatchGetSpaces for the whole response: what they may not open is never presented.
 */
export async function loadView(ctx: PublishingContext, access: OrgAccess, site: SiteDoc, shareKey?: string): Promise<StructureView> {
  const structure = await loadStructure(ctx, site);
  const spaces = await lookUpSpaces(ctx, site.organizationId, structure.siteSpaces.map((s) => s.spaceId), access.userId);
  return structureView(structure, spaces, ctx.config, shareKey);
}

/**
 * GET .../published (OpenAPI PublishedContentSite): the site and what a visitor with
 * `claims` sees of it. Sections and site spaces whose condition is false for the visitor
 * are left out, and so are site spaces whose space is gone and sections or groups left
 * empty: the structure only ever points at content that can be shown. The structure is
 * always of type 'sections': a site without sections shows its root site spaces as one
 * implicit default section (see presentRootSection), or nothing when none is visible.
 */
export function publishedContent(view: StructureView, access: OrgAccess, claims: VisitorClaims) {
  const { structure } = view;
  const shown = (s: { condition?: string | null }) => conditionHolds(s.condition, claims);
  const site = presentSite(structure.site, structure.siteSpaces.filter((s) => isPresentable(view, s)).length, access, view.config, view.shareKey);
  let presented: Array<ReturnType<typeof presentChildren>[number] | ReturnType<typeof presentRootSection>>;
  if (structure.sections.length > 0) {
    presented = presentChildren(view, null, { section: shown, siteSpace: shown, pruneEmpty: true });
  } else {
    const root = presentRootSection(view, shown);
    presented = root.siteSpaces.length ? [root] : [];
  }
  return {
    object: 'published-content-site' as const,
    site,
    structure: { type: 'sections' as const, structure: presented },
    scripts: [],
  };
}

import { apiUrl, httpError } from '@quire/http';
import type { PublishingConfig } from '../config';
import type { ShareLinkDoc, SiteDoc, SiteSectionDoc, SiteSectionGroupDoc, SiteSpaceDoc } from '../db/models';
import { sitePermissions, type OrgAccess } from '../domain/access';
import { conditionHolds, type VisitorClaims } from '../domain/conditions';
import { customizationOf, presentCustomization, siteSpaceCustomizationOf } from '../domain/customization';
import { childrenOf } from '../domain/structure';
import { isPresentable, isSectionPresentable, sectionAddress, siteSpaceAddress, type StructureView } from '../domain/structure-view';
import { defaultSiteAddress, siteAddress, siteApiUrl, withShareKey } from '../domain/urls';

/** The Site object (spec "Site", OpenAPI Site) as `access` sees it. */
export function presentSite(
  site: SiteDoc,
  { siteSpaces, access, config, shareKey }: { siteSpaces: number; access: OrgAccess; config: PublishingConfig; shareKey?: string },
) {
  return {
    object: 'site' as const,
    id: site._id,
    type: site.type,
    appliedType: site.type,
    title: site.title,
    ...(site.hostname ? { hostname: site.hostname } : {}),
    ...(site.basename ? { basename: site.basename } : {}),
    ...(site.proxy ? { proxy: { origin: site.proxy, target: defaultSiteAddress(site, config) } } : {}),
    visibility: site.visibility,
    // Sites have no access list of their own: members get their organization role on them.
    defaultLevel: 'inherit' as const,
    permissions: sitePermissions(access),
    published: site.published,
    siteSpaces,
    createdAt: site.createdAt.toISOString(),
    adaptiveContent: { enabled: site.adaptiveContent },
    agentsContext: site.agentsContext,
    features: [],
    urls: {
      location: siteApiUrl(config, site.organizationId, site._id),
      app: apiUrl(config.PUBLIC_BASE_URL, `/o/${site.organizationId}/sites/${site._id}`),
      preview: apiUrl(config.PUBLIC_BASE_URL, `/o/${site.organizationId}/sites/${site._id}/preview`),
      ...(site.published ? { published: withShareKey(siteAddress(site, config), shareKey) } : {}),
    },
  };
}

function published(view: StructureView, address: () => string) {
  return view.structure.site.published ? { published: withShareKey(address(), view.shareKey) } : {};
}

/**
 * A SiteSpace embeds its whole Space: one whose space the caller may not open (or that is
 * gone) is never presented (see isPresentable). Lists and sections leave it out; a write
 * that answers with it (the space trashed meanwhile) is a 404, as a read of it would be.
 */
export function presentSiteSpace(view: StructureView, siteSpace: SiteSpaceDoc) {
  const space = view.spaces.get(siteSpace.spaceId);
  if (!space) throw httpError.notFound('Site space');
  const isDefault = view.defaults.has(siteSpace._id);
  return {
    object: 'site-space' as const,
    id: siteSpace._id,
    path: siteSpace.path,
    ...(siteSpace.sectionId ? { section: siteSpace.sectionId } : {}),
    space: space.rest,
    title: space.title,
    default: isDefault,
    ...(siteSpace.condition ? { condition: siteSpace.condition } : {}),
    draft: false,
    hidden: false,
    hasAdvancedCustomizationFeature: false,
    urls: published(view, () => siteSpaceAddress(view, siteSpace)),
  };
}

/**
 * A site without sections keeps its site spaces at its root; the published structure is
 * still of type 'sections', so they are presented as one implicit default section: its id
 * is the site's, its title the site's, its path the basename (or the site id), its address
 * the site's. It cannot be addressed under /sections (it is not stored).
 */
export function presentRootSection(view: StructureView, visible: (s: SiteSpaceDoc) => boolean = () => true) {
  const site = view.structure.site;
  const variants = view.structure.siteSpaces.filter((s) => s.sectionId === null && isPresentable(view, s) && visible(s));
  return {
    object: 'site-section' as const,
    id: site._id,
    title: site.title,
    default: true,
    draft: false,
    path: (site.basename || site._id).slice(0, 100),
    siteSpaces: variants.map((s) => presentSiteSpace(view, s)),
    urls: published(view, () => siteAddress(site, view.config)),
  };
}

/** A section with its variants; `visible` narrows them (published structure for a visitor). */
export function presentSection(view: StructureView, section: SiteSectionDoc, visible: (s: SiteSpaceDoc) => boolean = () => true) {
  const variants = view.structure.siteSpaces.filter((s) => s.sectionId === section._id && isPresentable(view, s) && visible(s));
  return {
    object: 'site-section' as const,
    id: section._id,
    title: section.title,
    ...(section.description ? { description: section.description } : {}),
    default: view.defaultSection?._id === section._id,
    draft: false,
    path: section.path,
    ...(section.condition ? { condition: section.condition } : {}),
    ...(section.sectionGroupId ? { sectionGroup: section.sectionGroupId } : {}),
    ...(section.icon ? { icon: section.icon } : {}),
    siteSpaces: variants.map((s) => presentSiteSpace(view, s)),
    urls: published(view, () => sectionAddress(view, section)),
  };
}

type PresentedSection = ReturnType<typeof presentSection>;
export interface PresentedGroup {
  object: 'site-section-group';
  id: string;
  title: string;
  sectionGroup?: string;
  icon?: string;
  draft: false;
  sections: PresentedSection[];
  children: Array<PresentedSection | PresentedGroup>;
}

/** Filters used by the published structure to hide what a visitor may not see. */
export interface Visibility {
  section: (s: SiteSectionDoc) => boolean;
  siteSpace: (s: SiteSpaceDoc) => boolean;
  /** Drop sections without a visible variant and groups without visible children. */
  pruneEmpty: boolean;
}
const everything: Visibility = { section: () => true, siteSpace: () => true, pruneEmpty: false };

/** Presented children of a group (or of the site root when `groupId` is null). */
export function presentChildren(view: StructureView, groupId: string | null, visibility: Visibility = everything): Array<PresentedSection | PresentedGroup> {
  const presented: Array<PresentedSection | PresentedGroup> = [];
  for (const child of childrenOf(view.structure, groupId)) {
    if (child.kind === 'section') {
      if (!isSectionPresentable(view, child.doc) || !visibility.section(child.doc)) continue;
      const section = presentSection(view, child.doc, visibility.siteSpace);
      if (!visibility.pruneEmpty || section.siteSpaces.length > 0) presented.push(section);
    } else {
      const group = presentGroup(view, child.doc, visibility);
      if (!visibility.pruneEmpty || group.children.length > 0) presented.push(group);
    }
  }
  return presented;
}

export function presentGroup(view: StructureView, group: SiteSectionGroupDoc, visibility: Visibility = everything): PresentedGroup {
  const children = presentChildren(view, group._id, visibility);
  return {
    object: 'site-section-group',
    id: group._id,
    title: group.title,
    ...(group.parentId ? { sectionGroup: group.parentId } : {}),
    ...(group.icon ? { icon: group.icon } : {}),
    draft: false,
    sections: children.filter((c): c is PresentedSection => c.object === 'site-section'),
    children,
  };
}

export function presentShareLink(link: ShareLinkDoc, { site, config }: { site: SiteDoc; config: PublishingConfig }) {
  return {
    object: 'share-link' as const,
    id: link._id,
    createdAt: link.createdAt.toISOString(),
    name: link.name,
    active: link.active,
    urls: { published: withShareKey(siteAddress(site, config), link.key) },
  };
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
  const site = presentSite(structure.site, {
    siteSpaces: structure.siteSpaces.filter((s) => isPresentable(view, s)).length,
    access,
    config: view.config,
    shareKey: view.shareKey,
  });
  let presented: Array<ReturnType<typeof presentChildren>[number] | ReturnType<typeof presentRootSection>>;
  if (structure.sections.length > 0) {
    presented = presentChildren(view, null, { section: shown, siteSpace: shown, pruneEmpty: true });
  } else {
    const root = presentRootSection(view, shown);
    presented = root.siteSpaces.length ? [root] : [];
  }
  const customizedSiteSpaces = structure.siteSpaces.filter((s) => s.customization && isPresentable(view, s) && shown(s));
  return {
    object: 'published-content-site' as const,
    site,
    structure: { type: 'sections' as const, structure: presented },
    customizations: {
      site: presentCustomization(customizationOf(structure.site), structure.site.customization?.updatedAt),
      siteSpaces: Object.fromEntries(
        customizedSiteSpaces.map((s) => [s._id, presentCustomization(siteSpaceCustomizationOf(structure.site, s), s.customization?.updatedAt)]),
      ),
    },
    scripts: [],
  };
}

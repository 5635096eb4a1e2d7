import { apiUrl } from '@quire/http';
import type { PublishingConfig } from '../config';
import type { ShareLinkDoc, SiteDoc, SiteSectionDoc, SiteSectionGroupDoc, SiteSpaceDoc } from '../db/models';
import { sitePermissions, type OrgAccess } from '../domain/access';
import type { EmbeddedSpace, SpaceLookup } from '../domain/spaces';
import { childrenOf, defaultSectionOf, defaultSiteSpaceIds, type SiteStructure } from '../domain/structure';
import { defaultSiteAddress, joinAddress, siteAddress, siteApiUrl, withShareKey } from '../domain/urls';

/** The Site object (spec "Site", OpenAPI Site) as `access` sees it. */
export function presentSite(site: SiteDoc, siteSpaces: number, access: OrgAccess, config: PublishingConfig, shareKey?: string) {
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

/** What presenting sections and site spaces of one site needs, computed once per response. */
export interface StructureView {
  structure: SiteStructure;
  /** The site's spaces the caller may open: only these are ever embedded. */
  spaces: Map<string, EmbeddedSpace>;
  config: PublishingConfig;
  shareKey?: string;
  /** Defaults of the whole site (not of what the caller sees): they decide the published addresses. */
  defaults: Set<string>;
  defaultSection?: SiteSectionDoc;
  sectionsById: Map<string, SiteSectionDoc>;
  /** Sections left out for this caller (see isSectionPresentable). */
  hiddenSections: Set<string>;
}

export function structureView(structure: SiteStructure, lookup: SpaceLookup, config: PublishingConfig, shareKey?: string): StructureView {
  return {
    structure,
    spaces: lookup.visible,
    config,
    shareKey,
    defaults: defaultSiteSpaceIds(structure),
    defaultSection: defaultSectionOf(structure.site, structure.sections),
    sectionsById: new Map(structure.sections.map((s) => [s._id, s])),
    hiddenSections: sectionsHiddenFrom(structure, lookup),
  };
}

/**
 * A site space is shown only while content returns its space and the caller may open it.
 * One whose space is hidden from the caller is left out entirely (lists, their counts,
 * sections, groups, the published structure) rather than kept without its Space: OpenAPI
 * SiteSpace requires `space` (a whole Space: title, revision, counters…) and `title`, so it
 * would no longer be a valid SiteSpace, and even a stub would name the space and its path
 * (taken from the space's title). Leaving it out is also how a space that is gone is shown.
 */
export const isPresentable = (view: StructureView, siteSpace: SiteSpaceDoc) => view.spaces.has(siteSpace.spaceId);

/**
 * Sections whose variants all point at spaces hidden from the caller: such a section is left
 * out for them too (its title and path were taken from its first space, and it has nothing
 * they may open). A section that is empty for everyone stays: it shows nothing of a space.
 */
function sectionsHiddenFrom(structure: SiteStructure, lookup: SpaceLookup): Set<string> {
  const shown = new Set<string>();
  const withHidden = new Set<string>();
  for (const siteSpace of structure.siteSpaces) {
    if (!siteSpace.sectionId) continue;
    if (lookup.visible.has(siteSpace.spaceId)) shown.add(siteSpace.sectionId);
    else if (lookup.hidden.has(siteSpace.spaceId)) withHidden.add(siteSpace.sectionId);
  }
  return new Set([...withHidden].filter((id) => !shown.has(id)));
}

export const isSectionPresentable = (view: StructureView, section: SiteSectionDoc) => !view.hiddenSections.has(section._id);

function sectionAddress(view: StructureView, section: SiteSectionDoc): string {
  const base = siteAddress(view.structure.site, view.config);
  return view.defaultSection?._id === section._id ? base : joinAddress(base, section.path);
}

function published(view: StructureView, address: () => string) {
  return view.structure.site.published ? { published: withShareKey(address(), view.shareKey) } : {};
}

export function presentSiteSpace(view: StructureView, siteSpace: SiteSpaceDoc) {
  const space = view.spaces.get(siteSpace.spaceId);
  const isDefault = view.defaults.has(siteSpace._id);
  return {
    object: 'site-space' as const,
    id: siteSpace._id,
    path: siteSpace.path,
    ...(siteSpace.sectionId ? { section: siteSpace.sectionId } : {}),
    space: space?.rest ?? {},
    title: space?.title ?? '',
    default: isDefault,
    ...(siteSpace.condition ? { condition: siteSpace.condition } : {}),
    draft: false,
    hidden: false,
    hasAdvancedCustomizationFeature: false,
    urls: published(view, () => siteSpaceAddress(view, siteSpace)),
  };
}

/** Where a site space is published (without a share key): its section's address, plus its path unless it is the default. */
export function siteSpaceAddress(view: StructureView, siteSpace: SiteSpaceDoc): string {
  const section = siteSpace.sectionId ? view.sectionsById.get(siteSpace.sectionId) : undefined;
  const base = section ? sectionAddress(view, section) : siteAddress(view.structure.site, view.config);
  return view.defaults.has(siteSpace._id) ? base : joinAddress(base, siteSpace.path);
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

export function presentShareLink(link: ShareLinkDoc, site: SiteDoc, config: PublishingConfig) {
  return {
    object: 'share-link' as const,
    id: link._id,
    createdAt: link.createdAt.toISOString(),
    name: link.name,
    active: link.active,
    urls: { published: withShareKey(siteAddress(site, config), link.key) },
  };
}

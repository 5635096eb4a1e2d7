import type { PublishingConfig } from '../config';
import type { SiteSectionDoc, SiteSpaceDoc } from '../db/models';
import type { EmbeddedSpace, SpaceLookup } from './spaces';
import { defaultSectionOf, defaultSiteSpaceIds, type SiteStructure } from './structure';
import { joinAddress, siteAddress } from './urls';

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

export function sectionAddress(view: StructureView, section: SiteSectionDoc): string {
  const base = siteAddress(view.structure.site, view.config);
  return view.defaultSection?._id === section._id ? base : joinAddress(base, section.path);
}

/** Where a site space is published (without a share key): its section's address, plus its path unless it is the default. */
export function siteSpaceAddress(view: StructureView, siteSpace: SiteSpaceDoc): string {
  const section = siteSpace.sectionId ? view.sectionsById.get(siteSpace.sectionId) : undefined;
  const base = section ? sectionAddress(view, section) : siteAddress(view.structure.site, view.config);
  return view.defaults.has(siteSpace._id) ? base : joinAddress(base, siteSpace.path);
}

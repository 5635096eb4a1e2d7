import type { SiteDoc, SiteSectionDoc, SiteSectionGroupDoc, SiteSpaceDoc } from '../db/models';
import type { PublishingContext } from './context';
import { byPosition } from './positions';

/** Everything a site is made of, each kind in display order. */
export interface SiteStructure {
  site: SiteDoc;
  sections: SiteSectionDoc[];
  groups: SiteSectionGroupDoc[];
  /** Site spaces whose space is not in content's trash. */
  siteSpaces: SiteSpaceDoc[];
}

/** Site spaces hidden while their space is in the trash are left out of every query. */
export const LIVE = { spaceDeleted: { $ne: true } } as const;

export async function loadStructure(ctx: PublishingContext, site: SiteDoc): Promise<SiteStructure> {
  const [sections, groups, siteSpaces] = await Promise.all([
    ctx.models.SiteSection.find({ siteId: site._id }).lean(),
    ctx.models.SiteSectionGroup.find({ siteId: site._id }).lean(),
    ctx.models.SiteSpace.find({ siteId: site._id, ...LIVE }).lean(),
  ]);
  return { site, sections: sections.sort(byPosition), groups: groups.sort(byPosition), siteSpaces: siteSpaces.sort(byPosition) };
}

/** The default section: the one the site points at, else the first in order (exactly one). */
export function defaultSectionOf(site: Pick<SiteDoc, 'defaultSectionId'>, sections: SiteSectionDoc[]): SiteSectionDoc | undefined {
  return sections.find((s) => s._id === site.defaultSectionId) ?? [...sections].sort(byPosition)[0];
}

/** The default variant of a container (a section, or the root when `sectionId` is null). */
export function defaultSiteSpaceOf(pointer: string | null | undefined, siteSpaces: SiteSpaceDoc[], sectionId: string | null): SiteSpaceDoc | undefined {
  const variants = siteSpaces.filter((s) => s.sectionId === sectionId).sort(byPosition);
  return variants.find((s) => s._id === pointer) ?? variants[0];
}

/** Ids of every default site space of the site: one per section, or one at the root. */
export function defaultSiteSpaceIds(structure: SiteStructure): Set<string> {
  const ids = new Set<string>();
  const root = defaultSiteSpaceOf(structure.site.defaultSiteSpaceId, structure.siteSpaces, null);
  if (root) ids.add(root._id);
  for (const section of structure.sections) {
    const chosen = defaultSiteSpaceOf(section.defaultSiteSpaceId, structure.siteSpaces, section._id);
    if (chosen) ids.add(chosen._id);
  }
  return ids;
}

/** Sections and groups directly under `groupId` (null: the site root), in order. */
export function childrenOf(structure: SiteStructure, groupId: string | null) {
  const groupIds = new Set(structure.groups.map((g) => g._id));
  // An item whose group vanished (deleted concurrently) shows at the root rather than nowhere.
  const parentOf = (id: string | null | undefined) => (id && groupIds.has(id) ? id : null);
  const sections = structure.sections.filter((s) => parentOf(s.sectionGroupId) === groupId);
  const groups = structure.groups.filter((g) => parentOf(g.parentId) === groupId && g._id !== groupId);
  return [...sections.map((s) => ({ kind: 'section' as const, doc: s })), ...groups.map((g) => ({ kind: 'group' as const, doc: g }))].sort((a, b) =>
    byPosition(a.doc, b.doc),
  );
}

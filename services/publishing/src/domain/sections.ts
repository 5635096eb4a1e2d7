import type { Model } from 'mongoose';
import { httpError, slugify } from '@quire/http';
import { newId, isDuplicateKeyError } from '@quire/runtime';
import type { SiteDoc, SiteSectionDoc } from '../db/models';
import type { OrgAccess } from './access';
import type { PublishingContext } from './context';
import { byPosition, nextPositions, positionNextTo, POSITION_STEP, uniquePath, type Positioned } from './positions';
import { addSiteSpaces, requireSpaceNotInSite, requireValidCondition } from './site-spaces';
import { fetchSpaces } from './spaces';

const sectionTitle = (title: string) => (title.trim().length >= 2 ? title.slice(0, 128) : `${title.trim() || 'Untitled'} section`.slice(0, 128));

async function insertSection(
  ctx: PublishingContext,
  site: SiteDoc,
  fields: { title: string; icon?: string | null; position: number },
): Promise<SiteSectionDoc> {
  for (let attempt = 0; ; attempt++) {
    const taken = await ctx.models.SiteSection.find({ siteId: site._id }, { path: 1 }).lean();
    const section: SiteSectionDoc = {
      _id: newId(),
      siteId: site._id,
      organizationId: site.organizationId,
      title: fields.title,
      description: null,
      path: uniquePath(
        slugify(fields.title, { maxLength: 90 }),
        taken.map((t) => t.path),
      ),
      condition: null,
      icon: fields.icon ?? null,
      sectionGroupId: null,
      defaultSiteSpaceId: null,
      position: fields.position,
      createdAt: new Date(),
    };
    try {
      await ctx.models.SiteSection.create(section);
      return section;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      if (attempt >= 5) throw httpError.conflict('path: no free path for the section; retry');
    }
  }
}

/**
 * POST sections: a new section holding the given space as its first variant. As GitBook
 * does, the first section of a site whose site spaces sit at its root first gathers them
 * into a default section (titled after the site), so no site space is left outside sections.
 */
export async function addSection(
  ctx: PublishingContext,
  access: OrgAccess,
  site: SiteDoc,
  input: { spaceId: string; title?: string | null; icon?: string | null },
): Promise<SiteSectionDoc> {
  const spaces = await fetchSpaces(ctx, site.organizationId, [input.spaceId], access.userId);
  const space = spaces.get(input.spaceId);
  if (!space) throw httpError.badRequest(`Invalid body: spaceId: no space ${input.spaceId} in this organization`);
  await requireSpaceNotInSite(ctx, site, input.spaceId);

  const hasSections = await ctx.models.SiteSection.exists({ siteId: site._id });
  if (!hasSections && (await ctx.models.SiteSpace.exists({ siteId: site._id, sectionId: null }))) {
    const [position] = await nextPositions(ctx, site._id);
    const gathering = await insertSection(ctx, site, { title: sectionTitle(site.title), position });
    await ctx.models.SiteSection.updateOne({ _id: gathering._id }, { $set: { defaultSiteSpaceId: site.defaultSiteSpaceId ?? null } });
    await ctx.models.SiteSpace.updateMany({ siteId: site._id, sectionId: null }, { $set: { sectionId: gathering._id } });
    await ctx.models.Site.updateOne({ _id: site._id }, { $set: { defaultSectionId: gathering._id, defaultSiteSpaceId: null } });
  }

  const [position] = await nextPositions(ctx, site._id);
  const section = await insertSection(ctx, site, { title: sectionTitle(input.title ?? space.title), icon: input.icon, position });
  try {
    await addSiteSpaces(ctx, access, site, [{ spaceId: input.spaceId, sectionId: section._id }], 'spaceId');
  } catch (error) {
    await ctx.models.SiteSection.deleteOne({ _id: section._id });
    throw error;
  }
  return section;
}

export async function loadSection(ctx: PublishingContext, site: SiteDoc, sectionId: string): Promise<SiteSectionDoc> {
  const section = await ctx.models.SiteSection.findOne({ _id: sectionId, siteId: site._id }).lean();
  if (!section) throw httpError.notFound('Site section');
  return section;
}

export interface UpdateSectionInput {
  title?: string;
  path?: string;
  defaultSiteSpace?: string;
  condition?: string | null;
  icon?: string | null;
  description?: string | null;
}

export async function updateSection(ctx: PublishingContext, site: SiteDoc, section: SiteSectionDoc, input: UpdateSectionInput): Promise<SiteSectionDoc> {
  const set: Partial<SiteSectionDoc> = {};
  if (input.title !== undefined) set.title = input.title;
  if (input.path !== undefined && input.path !== section.path) {
    if (await ctx.models.SiteSection.exists({ siteId: site._id, path: input.path, _id: { $ne: section._id } })) {
      throw httpError.conflict(`path: "${input.path}" is already used by another section of this site`);
    }
    set.path = input.path;
  }
  if (input.icon !== undefined) set.icon = input.icon;
  if (input.description !== undefined) set.description = input.description;
  if (input.condition !== undefined) {
    requireValidCondition(input.condition);
    set.condition = input.condition || null;
  }
  if (input.defaultSiteSpace !== undefined) {
    const variant = await ctx.models.SiteSpace.exists({ _id: input.defaultSiteSpace, siteId: site._id, sectionId: section._id, spaceDeleted: { $ne: true } });
    if (!variant) throw httpError.badRequest('Invalid body: defaultSiteSpace: not a site space of this section');
    set.defaultSiteSpaceId = input.defaultSiteSpace;
  }
  try {
    const updated = await ctx.models.SiteSection.findOneAndUpdate({ _id: section._id, siteId: site._id }, { $set: set }, { returnDocument: 'after' }).lean();
    if (!updated) throw httpError.notFound('Site section');
    return updated;
  } catch (error) {
    if (isDuplicateKeyError(error)) throw httpError.conflict(`path: "${input.path}" is already used by another section of this site`);
    throw error;
  }
}

/** Removes the section and its variants; if it was the default, the first remaining section becomes it. */
export async function deleteSection(ctx: PublishingContext, site: SiteDoc, sectionId: string): Promise<void> {
  const { deletedCount } = await ctx.models.SiteSection.deleteOne({ _id: sectionId, siteId: site._id });
  if (deletedCount) await ctx.models.SiteSpace.deleteMany({ siteId: site._id, sectionId });
}

/** Sections and groups sharing a parent group (null: the site root), sorted. */
export async function levelItems(ctx: PublishingContext, siteId: string, groupId: string | null, exceptId: string): Promise<Positioned[]> {
  const [sections, groups] = await Promise.all([
    ctx.models.SiteSection.find({ siteId, sectionGroupId: groupId, _id: { $ne: exceptId } }, { position: 1 }).lean(),
    ctx.models.SiteSectionGroup.find({ siteId, parentId: groupId, _id: { $ne: exceptId } }, { position: 1 }).lean(),
  ]);
  return [...sections, ...groups].sort(byPosition);
}

/** A position next to `targetId` at a level, renumbering the level when neighbours are too close. */
export async function positionAtLevel(
  ctx: PublishingContext,
  siteId: string,
  groupId: string | null,
  exceptId: string,
  targetId: string,
  where: 'before' | 'after',
) {
  let siblings = await levelItems(ctx, siteId, groupId, exceptId);
  const position = positionNextTo(siblings, targetId, where);
  if (position !== null) return position;
  await Promise.all(
    siblings.map((s, i) =>
      Promise.all([
        ctx.models.SiteSection.updateOne({ _id: s._id }, { $set: { position: (i + 1) * POSITION_STEP } }),
        ctx.models.SiteSectionGroup.updateOne({ _id: s._id }, { $set: { position: (i + 1) * POSITION_STEP } }),
      ]),
    ),
  );
  siblings = await levelItems(ctx, siteId, groupId, exceptId);
  return positionNextTo(siblings, targetId, where)!;
}

/**
 * Deprecated move: before/after another section (the section joins that section's group),
 * or without a target to the end of its level.
 */
export async function moveSection(ctx: PublishingContext, site: SiteDoc, section: SiteSectionDoc, where: 'before' | 'after', targetId: string | undefined) {
  if (targetId === undefined) return moveToEnd(ctx, site, ctx.models.SiteSection, section._id, 'Site section');
  const target = await ctx.models.SiteSection.findOne({ _id: targetId, siteId: site._id }).lean();
  if (!target || target._id === section._id) throw httpError.badRequest(`Invalid body: position.${where}.siteSection: not another section of this site`);
  const groupId = target.sectionGroupId ?? null;
  const position = await positionAtLevel(ctx, site._id, groupId, section._id, target._id, where);
  const moved = await ctx.models.SiteSection.findOneAndUpdate(
    { _id: section._id },
    { $set: { position, sectionGroupId: groupId } },
    { returnDocument: 'after' },
  ).lean();
  if (!moved) throw httpError.notFound('Site section');
  return moved;
}

/** Gives an item a fresh position, after everything else of the site (so last of its level). */
export async function moveToEnd<T>(ctx: PublishingContext, site: SiteDoc, model: Model<T>, id: string, what: string) {
  const [position] = await nextPositions(ctx, site._id);
  const moved = await model.findOneAndUpdate({ _id: id, siteId: site._id }, { $set: { position } }, { returnDocument: 'after' }).lean<T>();
  if (!moved) throw httpError.notFound(what);
  return moved;
}

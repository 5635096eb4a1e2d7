import { httpError } from '@quire/http';
import { newId } from '@quire/runtime';
import type { SiteDoc, SiteSectionGroupDoc } from '../db/models';
import type { PublishingContext } from './context';
import { nextPositions } from './positions';
import { moveToEnd, positionAtLevel } from './sections';

export async function loadGroup(ctx: PublishingContext, site: SiteDoc, groupId: string): Promise<SiteSectionGroupDoc> {
  const group = await ctx.models.SiteSectionGroup.findOne({ _id: groupId, siteId: site._id }).lean();
  if (!group) throw httpError.notFound('Site section group');
  return group;
}

/** POST section-groups: a group at the root or under `parent`, taking in `sections`. */
export async function createGroup(
  ctx: PublishingContext,
  site: SiteDoc,
  input: { title: string; icon?: string | null; sections?: string[]; parent?: string },
): Promise<SiteSectionGroupDoc> {
  if (input.parent && !(await ctx.models.SiteSectionGroup.exists({ _id: input.parent, siteId: site._id }))) {
    throw httpError.badRequest('Invalid body: parent: not a section group of this site');
  }
  const sectionIds = [...new Set(input.sections ?? [])];
  if (sectionIds.length) {
    const found = await ctx.models.SiteSection.countDocuments({ _id: { $in: sectionIds }, siteId: site._id });
    if (found !== sectionIds.length) throw httpError.badRequest('Invalid body: sections: every entry must be a section of this site');
  }
  const [position] = await nextPositions(ctx, site._id);
  const group: SiteSectionGroupDoc = {
    _id: newId(),
    siteId: site._id,
    organizationId: site.organizationId,
    title: input.title,
    icon: input.icon ?? null,
    parentId: input.parent ?? null,
    position,
    createdAt: new Date(),
  };
  await ctx.models.SiteSectionGroup.create(group);
  if (sectionIds.length) await ctx.models.SiteSection.updateMany({ _id: { $in: sectionIds }, siteId: site._id }, { $set: { sectionGroupId: group._id } });
  return group;
}

export async function updateGroup(ctx: PublishingContext, group: SiteSectionGroupDoc, input: { title?: string; icon?: string | null }) {
  const set: Partial<SiteSectionGroupDoc> = {};
  if (input.title !== undefined) set.title = input.title;
  if (input.icon !== undefined) set.icon = input.icon;
  const updated = await ctx.models.SiteSectionGroup.findOneAndUpdate({ _id: group._id }, { $set: set }, { returnDocument: 'after' }).lean();
  if (!updated) throw httpError.notFound('Site section group');
  return updated;
}

/** Deleting a group keeps its content: its sections and groups move up to its parent. */
export async function deleteGroup(ctx: PublishingContext, site: SiteDoc, groupId: string): Promise<void> {
  const group = await ctx.models.SiteSectionGroup.findOneAndDelete({ _id: groupId, siteId: site._id }).lean();
  if (!group) return;
  const parent = group.parentId ?? null;
  await Promise.all([
    ctx.models.SiteSection.updateMany({ siteId: site._id, sectionGroupId: group._id }, { $set: { sectionGroupId: parent } }),
    ctx.models.SiteSectionGroup.updateMany({ siteId: site._id, parentId: group._id }, { $set: { parentId: parent } }),
  ]);
}

export async function addSectionToGroup(ctx: PublishingContext, site: SiteDoc, group: SiteSectionGroupDoc, sectionId: string) {
  const { matchedCount } = await ctx.models.SiteSection.updateOne({ _id: sectionId, siteId: site._id }, { $set: { sectionGroupId: group._id } });
  if (!matchedCount) throw httpError.badRequest('Invalid body: sectionId: not a section of this site');
}

/** DELETE of a section from a group: nothing to do when the group or the section in it is gone (204 either way). */
export async function removeSectionFromGroupIfPresent(ctx: PublishingContext, site: SiteDoc, groupId: string, sectionId: string) {
  const group = await ctx.models.SiteSectionGroup.findOne({ _id: groupId, siteId: site._id }).lean<SiteSectionGroupDoc>();
  if (group) await removeSectionFromGroup(ctx, site, group, sectionId);
}

/** Takes a section out of a group (back to the group's parent); nothing to do when it was not in it. */
export async function removeSectionFromGroup(ctx: PublishingContext, site: SiteDoc, group: SiteSectionGroupDoc, sectionId: string) {
  await ctx.models.SiteSection.updateOne({ _id: sectionId, siteId: site._id, sectionGroupId: group._id }, { $set: { sectionGroupId: group.parentId ?? null } });
}

/** Deprecated move: before/after a section or group of the same level, or to the end of it. */
export async function moveGroup(
  ctx: PublishingContext,
  site: SiteDoc,
  group: SiteSectionGroupDoc,
  where: 'before' | 'after',
  target: { type: 'site-section' | 'site-section-group'; id: string } | undefined,
) {
  if (!target) return moveToEnd(ctx, site, ctx.models.SiteSectionGroup, group._id, 'Site section group');
  const level = group.parentId ?? null;
  const targetLevel =
    target.type === 'site-section'
      ? (await ctx.models.SiteSection.findOne({ _id: target.id, siteId: site._id }, { sectionGroupId: 1 }).lean())?.sectionGroupId
      : target.id === group._id
        ? undefined
        : (await ctx.models.SiteSectionGroup.findOne({ _id: target.id, siteId: site._id }, { parentId: 1 }).lean())?.parentId;
  if (targetLevel === undefined) throw httpError.badRequest(`Invalid body: position.${where}.id: not another section or group of this site`);
  if ((targetLevel ?? null) !== level) throw httpError.badRequest(`Invalid body: position.${where}.id: not at the same level as the group`);
  const position = await positionAtLevel(ctx, site._id, level, group._id, target.id, where);
  const moved = await ctx.models.SiteSectionGroup.findOneAndUpdate({ _id: group._id }, { $set: { position } }, { returnDocument: 'after' }).lean();
  if (!moved) throw httpError.notFound('Site section group');
  return moved;
}

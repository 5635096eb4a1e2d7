import { httpError, slugify } from '@quire/http';
import { newId, isDuplicateKeyError } from '@quire/runtime';
import type { SiteDoc, SiteSpaceDoc } from '../db/models';
import type { OrgAccess } from './access';
import { checkCondition } from './conditions';
import type { PublishingContext } from './context';
import { byPosition, nextPositions, positionNextTo, POSITION_STEP, uniquePath } from './positions';
import { fetchSpaces } from './spaces';
import { LIVE, defaultSectionOf } from './structure';

/** 400 naming `field` unless the condition parses and uses only what the evaluator knows. */
export function requireValidCondition(condition: string | null | undefined, field = 'condition'): void {
  if (condition === null || condition === undefined || condition === '') return;
  const checked = checkCondition(condition);
  if (!checked.ok) throw httpError.badRequest(`Invalid body: ${field}: ${checked.message}`);
}

/**
 * Adds site spaces (one per item; `sectionId` null = the site root) for spaces of the
 * organization, checked in one BatchGetSpaces. Each gets a path unique in its container.
 */
export async function addSiteSpaces(
  ctx: PublishingContext,
  access: OrgAccess,
  site: SiteDoc,
  items: Array<{ spaceId: string; sectionId: string | null }>,
  field: string,
): Promise<SiteSpaceDoc[]> {
  const spaces = await fetchSpaces(
    ctx,
    site.organizationId,
    items.map((i) => i.spaceId),
    access.userId,
  );
  const missing = items.find((i) => !spaces.has(i.spaceId));
  if (missing) throw httpError.badRequest(`Invalid body: ${field}: no space ${missing.spaceId} in this organization`);
  const positions = await nextPositions(ctx, site._id, items.length);
  const created: SiteSpaceDoc[] = [];
  for (const [index, item] of items.entries()) {
    const title = spaces.get(item.spaceId)!.title;
    created.push(
      await insertWithFreePath(ctx, site, { spaceId: item.spaceId, sectionId: item.sectionId, position: positions[index] }, slugify(title, { maxLength: 90 })),
    );
  }
  return created;
}

async function insertWithFreePath(
  ctx: PublishingContext,
  site: SiteDoc,
  item: { spaceId: string; sectionId: string | null; position: number },
  wanted: string,
): Promise<SiteSpaceDoc> {
  // Two additions at once may pick the same free path: the unique index refuses one, which retries.
  for (let attempt = 0; ; attempt++) {
    const taken = await ctx.models.SiteSpace.find({ siteId: site._id, sectionId: item.sectionId }, { path: 1 }).lean();
    const doc: SiteSpaceDoc = {
      _id: newId(),
      siteId: site._id,
      organizationId: site.organizationId,
      sectionId: item.sectionId,
      spaceId: item.spaceId,
      path: uniquePath(
        wanted,
        taken.map((t) => t.path),
      ),
      condition: null,
      position: item.position,
      spaceDeleted: false,
      createdAt: new Date(),
    };
    try {
      await ctx.models.SiteSpace.create(doc);
      return doc;
    } catch (error) {
      if (!isDuplicateKeyError(error)) throw error;
      if (attempt >= 5) throw httpError.conflict('path: no free path for the site space; retry');
    }
  }
}

/**
 * 409 naming spaceId when the space already is in the site (in any section, or trashed
 * and waiting to come back). A space is published at most once per site, which also
 * makes adding one idempotent: the same POST sent twice at once adds it once, because
 * writes to a site run one at a time under its lock (domain/locks).
 */
export async function requireSpaceNotInSite(ctx: PublishingContext, site: SiteDoc, spaceId: string, exceptSiteSpaceId?: string): Promise<void> {
  const other = exceptSiteSpaceId ? { _id: { $ne: exceptSiteSpaceId } } : {};
  if (await ctx.models.SiteSpace.exists({ siteId: site._id, spaceId, ...other })) {
    throw httpError.conflict(`spaceId: the space ${spaceId} is already in this site`);
  }
}

/** POST site-spaces: into the given section, else the default section, else the root. */
export async function addSiteSpace(ctx: PublishingContext, access: OrgAccess, site: SiteDoc, input: { spaceId: string; sectionId?: string }) {
  let sectionId: string | null = null;
  if (input.sectionId) {
    const section = await ctx.models.SiteSection.exists({ _id: input.sectionId, siteId: site._id });
    if (!section) throw httpError.badRequest('Invalid body: sectionId: not a section of this site');
    sectionId = input.sectionId;
  } else {
    const sections = await ctx.models.SiteSection.find({ siteId: site._id }).lean();
    sectionId = defaultSectionOf(site, sections)?._id ?? null;
  }
  await requireSpaceNotInSite(ctx, site, input.spaceId);
  const [created] = await addSiteSpaces(ctx, access, site, [{ spaceId: input.spaceId, sectionId }], 'spaceId');
  return created;
}

export async function loadSiteSpace(ctx: PublishingContext, site: SiteDoc, siteSpaceId: string): Promise<SiteSpaceDoc> {
  const siteSpace = await ctx.models.SiteSpace.findOne({ _id: siteSpaceId, siteId: site._id, ...LIVE }).lean();
  if (!siteSpace) throw httpError.notFound('Site space');
  return siteSpace;
}

export async function updateSiteSpace(
  ctx: PublishingContext,
  access: OrgAccess,
  site: SiteDoc,
  siteSpace: SiteSpaceDoc,
  input: { path?: string; condition?: string | null; spaceId?: string },
): Promise<SiteSpaceDoc> {
  const set: Partial<SiteSpaceDoc> = {};
  if (input.condition !== undefined) {
    requireValidCondition(input.condition);
    set.condition = input.condition || null;
  }
  if (input.spaceId !== undefined && input.spaceId !== siteSpace.spaceId) {
    const spaces = await fetchSpaces(ctx, site.organizationId, [input.spaceId], access.userId);
    if (!spaces.has(input.spaceId)) throw httpError.badRequest(`Invalid body: spaceId: no space ${input.spaceId} in this organization`);
    await requireSpaceNotInSite(ctx, site, input.spaceId, siteSpace._id);
    set.spaceId = input.spaceId;
  }
  if (input.path !== undefined && input.path !== siteSpace.path) {
    const taken = await ctx.models.SiteSpace.exists({ siteId: site._id, sectionId: siteSpace.sectionId, path: input.path, _id: { $ne: siteSpace._id } });
    if (taken) throw httpError.conflict(`path: "${input.path}" is already used by another site space of this section`);
    set.path = input.path;
  }
  try {
    const updated = await ctx.models.SiteSpace.findOneAndUpdate({ _id: siteSpace._id, siteId: site._id }, { $set: set }, { returnDocument: 'after' }).lean();
    if (!updated) throw httpError.notFound('Site space');
    return updated;
  } catch (error) {
    if (isDuplicateKeyError(error)) throw httpError.conflict(`path: "${input.path}" is already used by another site space of this section`);
    throw error;
  }
}

export async function deleteSiteSpace(ctx: PublishingContext, site: SiteDoc, siteSpaceId: string): Promise<void> {
  await ctx.models.SiteSpace.deleteOne({ _id: siteSpaceId, siteId: site._id });
}

/** Deprecated move: before/after another site space of the same section (or of the root), or last in it. */
export async function moveSiteSpace(
  ctx: PublishingContext,
  site: SiteDoc,
  siteSpace: SiteSpaceDoc,
  where: 'before' | 'after',
  targetId: string | undefined,
): Promise<SiteSpaceDoc> {
  if (targetId === undefined) {
    const [last] = await nextPositions(ctx, site._id);
    const moved = await ctx.models.SiteSpace.findOneAndUpdate({ _id: siteSpace._id }, { $set: { position: last } }, { returnDocument: 'after' }).lean();
    if (!moved) throw httpError.notFound('Site space');
    return moved;
  }
  const target = await ctx.models.SiteSpace.findOne({ _id: targetId, siteId: site._id, ...LIVE }).lean();
  if (!target || target._id === siteSpace._id) throw httpError.badRequest(`Invalid body: position.${where}.siteSpace: not another site space of this site`);
  if (target.sectionId !== siteSpace.sectionId) throw httpError.badRequest(`Invalid body: position.${where}.siteSpace: not in the same section`);
  const load = async () =>
    (await ctx.models.SiteSpace.find({ siteId: site._id, sectionId: siteSpace.sectionId, _id: { $ne: siteSpace._id } }, { position: 1 }).lean()).sort(
      byPosition,
    );
  let siblings = await load();
  let position = positionNextTo(siblings, targetId, where);
  if (position === null) {
    await Promise.all(siblings.map((s, i) => ctx.models.SiteSpace.updateOne({ _id: s._id }, { $set: { position: (i + 1) * POSITION_STEP } })));
    siblings = await load();
    position = positionNextTo(siblings, targetId, where)!;
  }
  const moved = await ctx.models.SiteSpace.findOneAndUpdate({ _id: siteSpace._id }, { $set: { position } }, { returnDocument: 'after' }).lean();
  if (!moved) throw httpError.notFound('Site space');
  return moved;
}

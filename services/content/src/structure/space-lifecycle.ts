import { EVENTS, queuePerInstance, type JobQueue } from '@quire/async';
import { httpError } from '@quire/http';
import { z } from 'zod';
import { getStanding, loadSpaceAccess, requireSpaceRole, SPACE_ACTION_ROLES, type SpaceAccess } from '../access';
import { spaceLock, withLock, type ContentContext, type SpaceDoc } from '../kernel';
import { purgeSpaceContent } from '../revisions';
import { lastPosition } from './positions';
import { withRole, type SpaceWithRole } from './spaces';

/** Spec Limits: a deleted space stays restorable for 7 days, then it is purged. */
export const DEFAULT_SPACE_RETENTION_MS = 7 * 24 * 3600 * 1000;

/** The retention setting of the service's config (config.ts merges it in). */
export const spaceLifecycleConfigSchema = z.object({
  // Spec Limits: 7 days. Shorter values exist for tests that watch a real purge.
  SPACE_RETENTION_MS: z.coerce.number().int().positive().default(DEFAULT_SPACE_RETENTION_MS),
});
type SpaceLifecycleConfig = z.infer<typeof spaceLifecycleConfigSchema>;

/** The configured retention (SPACE_RETENTION_MS); 7 days by default. */
export function spaceRetentionMs(ctx: ContentContext): number {
  const configured = (ctx.config as Partial<SpaceLifecycleConfig>).SPACE_RETENTION_MS;
  return typeof configured === 'number' && configured > 0 ? configured : DEFAULT_SPACE_RETENTION_MS;
}

interface PurgeJob {
  spaceId: string;
}

const purgeQueue = queuePerInstance<PurgeJob, { purged: boolean }>('content-space-purge');

/** The delayed-purge queue of this service instance (created on first use). */
export function spacePurgeQueue(ctx: ContentContext): JobQueue<PurgeJob, { purged: boolean }> {
  return purgeQueue.of(ctx);
}

/**
 * Removes what the modules above this one keep of a purged space (comments, search
 * indexes, Git sync state). They build on structure, so the service passes it in.
 */
export type FeatureDataPurge = (ctx: ContentContext, spaceId: string) => Promise<void>;

/** Runs purge jobs in this process (service start). */
export function startSpacePurgeWorker(ctx: ContentContext, purgeFeatureData: FeatureDataPurge): void {
  spacePurgeQueue(ctx).work(async (job) => ({ purged: await purgeTrashedSpace(ctx, job.data.spaceId, purgeFeatureData) }));
}

export function closeSpacePurgeQueue(ctx: ContentContext): Promise<void> {
  return purgeQueue.close(ctx);
}

/**
 * Removes a space for good, only if it is still deleted and its retention is over (a
 * restore in between, or a newer deletion, makes the job a no-op): what the feature
 * modules keep of it, its content, its grants, then the space. Idempotent.
 */
export async function purgeTrashedSpace(ctx: ContentContext, spaceId: string, purgeFeatureData: FeatureDataPurge): Promise<boolean> {
  // The whole check-purge-delete runs under the space lock: a restore slipping in between
  // the content purge and the final delete would bring back a space without its content.
  // It is a few database deletes, well within the lock's TTL.
  const space = await withLock(ctx, spaceLock(spaceId), async () => {
    const found = await ctx.models.Space.findById(spaceId).lean<SpaceDoc>();
    if (!found?.deletedAt) return null;
    if (Date.now() - new Date(found.deletedAt).getTime() < spaceRetentionMs(ctx)) return null;
    await purgeFeatureData(ctx, spaceId);
    await purgeSpaceContent(ctx, spaceId);
    await ctx.models.Grant.deleteMany({ resourceType: 'space', resourceId: spaceId });
    const removed = await ctx.models.Space.deleteOne({ _id: spaceId, deletedAt: found.deletedAt });
    return removed.deletedCount === 0 ? null : found;
  });
  if (!space) return false;
  await ctx.events.publish(EVENTS.spacePurged, { organizationId: space.organizationId, spaceId }, { organizationId: space.organizationId });
  return true;
}

/**
 * DELETE: into the trash (deletedAt), out of every list, purged after the retention.
 * Missing, invisible or already deleted spaces answer 204 like any DELETE of nothing.
 */
export async function deleteSpace(ctx: ContentContext, userId: string, spaceId: string): Promise<void> {
  let access: SpaceAccess;
  try {
    access = await loadSpaceAccess(ctx, userId, spaceId);
  } catch (error) {
    if ((error as { status?: number }).status === 404) return;
    throw error;
  }
  requireSpaceRole(access, SPACE_ACTION_ROLES.admin, 'delete it');
  const deletedAt = new Date();
  const updated = await withLock(ctx, spaceLock(spaceId), () =>
    ctx.models.Space.findOneAndUpdate(
      { _id: spaceId, deletedAt: null },
      { $set: { deletedAt, updatedAt: deletedAt } },
      { returnDocument: 'after' },
    ).lean<SpaceDoc>(),
  );
  if (!updated) return;
  const { organizationId } = updated;
  await ctx.events.publish(EVENTS.spaceDeleted, { organizationId, spaceId }, { organizationId });
  await spacePurgeQueue(ctx).add({ spaceId }, { delay: spaceRetentionMs(ctx), jobId: `purge-${spaceId}-${deletedAt.getTime()}` });
}

/** Takes a space out of the trash within the retention; later it is not allowed (403). */
export async function restoreSpace(ctx: ContentContext, userId: string, spaceId: string): Promise<SpaceWithRole> {
  const access = await loadSpaceAccess(ctx, userId, spaceId, { includeDeleted: true });
  requireSpaceRole(access, SPACE_ACTION_ROLES.admin, 'restore it');
  if (!access.space.deletedAt) return { space: access.space, role: access.role, defaultLevel: access.defaultLevel };
  // Checked and written on the space as it is under the lock (a purge or another restore
  // may have run since it was read for the access check).
  const restored = await withLock(ctx, spaceLock(spaceId), async () => {
    const space = await ctx.models.Space.findById(spaceId).lean<SpaceDoc>();
    if (!space) throw httpError.notFound('Space');
    if (!space.deletedAt) return null;
    if (Date.now() - new Date(space.deletedAt).getTime() >= spaceRetentionMs(ctx)) {
      throw httpError.forbidden('This space was deleted more than 7 days ago: it can no longer be restored');
    }
    // Its collection may have been deleted meanwhile: it comes back at the root then.
    const parentExists = space.parentId ? await ctx.models.Collection.exists({ _id: space.parentId }) : null;
    const set: Record<string, unknown> = { deletedAt: null, updatedAt: new Date() };
    if (space.parentId && !parentExists) {
      set.parentId = null;
      if (space.visibility === 'in-collection') set.visibility = 'private';
    }
    const updated = await ctx.models.Space.findOneAndUpdate(
      { _id: spaceId, deletedAt: space.deletedAt },
      { $set: set },
      { returnDocument: 'after' },
    ).lean<SpaceDoc>();
    if (!updated) throw httpError.conflict('The space changed while it was being restored; try again');
    return updated;
  });
  if (!restored) {
    // Restored concurrently: the answer is the live space, as for one that was never deleted.
    const live = await ctx.models.Space.findById(spaceId).lean<SpaceDoc>();
    if (!live) throw httpError.notFound('Space');
    return withRole(ctx, userId, live);
  }
  await ctx.events.publish(EVENTS.spaceRestored, { organizationId: restored.organizationId, spaceId }, { organizationId: restored.organizationId });
  return withRole(ctx, userId, restored);
}

/**
 * Moves a space to another organization the caller administers (admin of the space and
 * of the target). It lands at the target's root; grants of the old organization go.
 */
export async function transferSpace(ctx: ContentContext, userId: string, access: SpaceAccess, organizationId: string): Promise<SpaceWithRole> {
  requireSpaceRole(access, SPACE_ACTION_ROLES.admin, 'transfer it');
  const { space } = access;
  if (organizationId === space.organizationId) throw httpError.conflict('The space already belongs to this organization');
  const target = await getStanding(ctx, organizationId, userId);
  if (!target.member) throw httpError.notFound('Organization');
  if (target.orgRole !== 'admin') throw httpError.forbidden('You need to be an admin of the target organization to transfer a space to it');
  const position = await lastPosition(ctx, organizationId, null);
  const moved = await withLock(ctx, spaceLock(space._id), async () => {
    const current = await ctx.models.Space.findOne({ _id: space._id, organizationId: space.organizationId, deletedAt: null }).lean<SpaceDoc>();
    if (!current) return null;
    const set: Record<string, unknown> = { organizationId, parentId: null, position, updatedAt: new Date() };
    if (current.visibility === 'in-collection') set.visibility = 'private';
    return ctx.models.Space.findOneAndUpdate(
      { _id: space._id, organizationId: space.organizationId, deletedAt: null },
      { $set: set },
      { returnDocument: 'after' },
    ).lean<SpaceDoc>();
  });
  if (!moved) throw httpError.notFound('Space');
  await ctx.models.Grant.deleteMany({ resourceType: 'space', resourceId: space._id });
  await ctx.events.publish(
    EVENTS.spaceTransferred,
    { spaceId: space._id, fromOrganizationId: space.organizationId, toOrganizationId: organizationId },
    { organizationId },
  );
  return withRole(ctx, userId, moved);
}

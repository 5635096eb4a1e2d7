import { EVENT_TYPES } from '@quire/async';
import { httpError } from '@quire/http';
import { announce, spaceLock, withLock, type ContentContext, type SpaceDoc } from '../kernel';
import type { RevisionDoc } from './revision-store';
import { discardRevision, loadRevision, writeBuiltRevision, writeRevision, type BuiltContent } from './revisions';

/*
 * What the spaces code needs from the revisions code (contract between the two halves of
 * this service): the content a space starts with, copies of it, and its removal.
 */

/** Creates the empty first revision of a new space and returns its id. */
export async function createInitialRevision(ctx: ContentContext, input: { spaceId: string; organizationId: string; createdBy: string }): Promise<string> {
  const revision = await writeRevision(ctx, { spaceId: input.spaceId, parents: [], pages: [], files: [], createdBy: input.createdBy });
  return revision._id;
}

/**
 * Copies `revisionId`'s content into a new revision owned by `toSpaceId` (for duplicate);
 * returns its id. Bodies and blobs are content-addressed and shared, so only the tree is copied.
 */
export async function copyRevisionToSpace(ctx: ContentContext, input: { revisionId: string; toSpaceId: string; createdBy: string }): Promise<string> {
  const source = await loadRevision(ctx, input.revisionId);
  const revision = await writeRevision(ctx, {
    spaceId: input.toSpaceId,
    parents: [],
    pages: source.pages,
    files: source.files,
    createdBy: input.createdBy,
    variables: source.variables,
  });
  return revision._id;
}

/**
 * Removes the content a purged space owned (change requests, link indexes, revisions);
 * idempotent. Page bodies and file blobs are shared by hash between spaces and stay.
 */
export async function purgeSpaceContent(ctx: ContentContext, spaceId: string): Promise<void> {
  await ctx.models.ChangeRequest.deleteMany({ spaceId });
  await ctx.models.RevisionLinks.deleteMany({ spaceId });
  await ctx.models.Revision.deleteMany({ spaceId });
}

const MAX_COMMIT_ATTEMPTS = 20;

/**
 * Moves a space's primary content to a new revision built from its current one (templates
 * and Git imports; merges have their own three-way path). The space is compared-and-set
 * under its lock: when another write moved it first, the new revision is discarded and
 * `build` runs again on the newer content. Publishes space.content_updated.
 */
export async function commitSpaceRevision(
  ctx: ContentContext,
  spaceId: string,
  userId: string,
  build: (current: RevisionDoc, space: SpaceDoc) => Promise<BuiltContent> | BuiltContent,
): Promise<{ space: SpaceDoc; revision: RevisionDoc }> {
  for (let attempt = 0; attempt < MAX_COMMIT_ATTEMPTS; attempt += 1) {
    const space = await ctx.models.Space.findById(spaceId).lean<SpaceDoc>();
    if (!space || space.deletedAt) throw httpError.notFound('Space');
    const current = await loadRevision(ctx, space.revisionId);
    const built = await build(current, space);
    const revision = await writeBuiltRevision(ctx, spaceId, [current._id], userId, built);
    const moved = await withLock(ctx, spaceLock(spaceId), () =>
      ctx.models.Space.findOneAndUpdate(
        { _id: spaceId, version: space.version, revisionId: space.revisionId, deletedAt: null },
        { $set: { revisionId: revision._id, updatedAt: new Date() }, $inc: { version: 1 } },
        { returnDocument: 'after' },
      ).lean<SpaceDoc>(),
    );
    if (moved) {
      await publishContentUpdated(ctx, moved, revision._id);
      return { space: moved, revision };
    }
    await discardRevision(ctx, revision._id);
  }
  throw httpError.conflict('The space changed too often concurrently; retry');
}

/** Tells other services (and search warm-up) that the space's primary content moved; never fails the write. */
export async function publishContentUpdated(ctx: ContentContext, space: SpaceDoc, revisionId: string): Promise<void> {
  const organizationId = space.organizationId;
  await announce(ctx, { type: EVENT_TYPES.spaceContentUpdated, organizationId, payload: { organizationId, spaceId: space._id, revisionId } });
}

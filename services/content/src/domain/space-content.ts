import type { ContentContext } from './context';
import { loadRevision, writeRevision } from './revisions';

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
  });
  return revision._id;
}

/**
 * Removes everything a purged space owned (revisions, change requests, link indexes);
 * idempotent. Page bodies and file blobs are shared by hash between spaces and stay.
 */
export async function purgeSpaceContent(ctx: ContentContext, spaceId: string): Promise<void> {
  await ctx.models.ChangeRequest.deleteMany({ spaceId });
  await ctx.models.RevisionLinks.deleteMany({ spaceId });
  await ctx.models.Revision.deleteMany({ spaceId });
}

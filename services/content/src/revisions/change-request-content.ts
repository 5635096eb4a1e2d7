import { httpError } from '@quire/http';
import { changeRequestLock, withLock, type ContentContext } from '../kernel';
import { applyChanges, type ChangeResult, type ContentChange } from './content-changes';
import type { ChangeRequestDoc, RevisionDoc, RevisionFileDoc } from './revision-store';
import { discardRevision, loadRevision, writeBuiltRevision } from './revisions';

/*
 * The content side of change requests (their documents are stored with the revisions):
 * finding one, and reading or writing its line of revisions. Content reads, comments,
 * templates and signed PDFs use it as well as the change requests module, which builds
 * their lifecycle (status, reviews, merge) on top of it.
 */

const MAX_WRITE_ATTEMPTS = 20;

/** The change request by id or by its number in the space; 404 otherwise. */
export async function findChangeRequest(ctx: ContentContext, spaceId: string, idOrNumber: string): Promise<ChangeRequestDoc> {
  const filter = /^\d{1,9}$/.test(idOrNumber) ? { spaceId, number: Number(idOrNumber) } : { spaceId, _id: idOrNumber };
  const changeRequest = await ctx.models.ChangeRequest.findOne(filter).lean<ChangeRequestDoc>();
  if (!changeRequest) throw httpError.notFound('Change request');
  return changeRequest;
}

/** A change request and one revision of its space (a signed PDF); 404 when either is gone or they do not belong together. */
export async function loadChangeRequestRevision(
  ctx: ContentContext,
  changeRequestId: string,
  revisionId: string,
): Promise<{ changeRequest: ChangeRequestDoc; revision: RevisionDoc }> {
  const [changeRequest, revision] = await Promise.all([
    ctx.models.ChangeRequest.findById(changeRequestId).lean<ChangeRequestDoc>(),
    loadRevision(ctx, revisionId).catch(() => null),
  ]);
  if (!changeRequest || !revision || revision.spaceId !== changeRequest.spaceId) throw httpError.notFound('Change request');
  return { changeRequest, revision };
}

/**
 * Applies an ordered batch of changes as ONE new revision of the change request. A lost
 * race with another write re-applies the batch on the newer revision.
 */
export async function writeChangeRequestContent(
  ctx: ContentContext,
  changeRequest: ChangeRequestDoc,
  userId: string,
  changes: ContentChange[],
): Promise<{ changeRequest: ChangeRequestDoc; results: ChangeResult[]; files: RevisionFileDoc[] }> {
  let current = changeRequest;
  for (let attempt = 0; attempt < MAX_WRITE_ATTEMPTS; attempt += 1) {
    if (current.status === 'merged') throw httpError.conflict('This change request is merged: its content can no longer change');
    const revision = await loadRevision(ctx, current.revisionId);
    const applied = applyChanges(revision, changes);
    const written = await writeBuiltRevision(ctx, current.spaceId, [current.revisionId], userId, applied);
    const updated = await withLock(ctx, changeRequestLock(current._id), () =>
      ctx.models.ChangeRequest.findOneAndUpdate(
        { _id: current._id, revisionId: current.revisionId, status: { $ne: 'merged' } },
        { $set: { revisionId: written._id, updatedAt: new Date() }, $addToSet: { contributors: userId }, $inc: { version: 1 } },
        { returnDocument: 'after' },
      ).lean<ChangeRequestDoc>(),
    );
    if (updated) return { changeRequest: updated, results: applied.results, files: applied.files };
    await discardRevision(ctx, written._id);
    const fresh = await ctx.models.ChangeRequest.findById(current._id).lean<ChangeRequestDoc>();
    if (!fresh) throw httpError.notFound('Change request');
    current = fresh;
  }
  throw httpError.conflict('The change request changed too often concurrently; retry');
}

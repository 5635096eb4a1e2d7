import { EVENTS } from '@quire/async';
import { HttpError, httpError } from '@quire/http';
import { changeRequestLock, spaceLock, withLock, type ContentContext, type SpaceDoc } from '../kernel';
import {
  assignPacks,
  discardRevision,
  loadBodies,
  loadRevision,
  publishContentUpdated,
  storeBodies,
  writeRevision,
  type ChangeRequestDoc,
  type RevisionDoc,
  type RevisionFileDoc,
  type RevisionPageDoc,
} from '../revisions';
import { counterDelta, enforceMergeRules } from './change-requests';
import { mergeContent, pick3, type MergeConflict } from './merge';

/*
 * Merge (change request → space) and update (space → change request): the same three-way
 * merge, base = revisionMergedAncestor ?? revisionInitial. The result is written as a new
 * revision, then the target's pointer moves with a conditional update (Space.version for
 * the space, the read revisionId for the change request); a lost race throws the result
 * away and merges again against the newer content, so no concurrent change is ever lost.
 */

const MAX_ATTEMPTS = 25;

/** 409 listing the conflicting pages, files and space variables; nothing was written. */
export class MergeConflictError extends HttpError {
  constructor(readonly conflicts: MergeConflict[]) {
    const what = (c: MergeConflict) => (c.page ? `page "${c.page.title}" (${c.page.id})` : c.file ? `file "${c.file.name}" (${c.file.id})` : 'space variables');
    const listed = conflicts
      .slice(0, 20)
      .map((c) => `${what(c)}: ${c.reason}`)
      .join('; ');
    super(409, `Merge conflict: ${listed}${conflicts.length > 20 ? `; and ${conflicts.length - 20} more` : ''}`);
  }
}

interface MergedContent {
  pages: RevisionPageDoc[];
  files: RevisionFileDoc[];
  variables?: Record<string, string>;
}

type Variables = Record<string, string> | undefined;

/**
 * Three-way merge of a variables map, name by name, with the rule pages follow (pick3): a
 * name changed (set, edited or removed) on one side only takes that side's value; changed
 * to the same value on both is kept; changed differently on both is a conflict, reported
 * by name. `conflict(name)` records it.
 */
export function mergeVariables(base: Variables, ours: Variables, theirs: Variables, conflict: (name: string) => void): Record<string, string> | undefined {
  const merged: Record<string, string> = {};
  const names = new Set([...Object.keys(base ?? {}), ...Object.keys(ours ?? {}), ...Object.keys(theirs ?? {})]);
  const valueOf = (map: Variables, name: string) => (map && Object.hasOwn(map, name) ? map[name] : undefined);
  for (const name of [...names].sort()) {
    const picked = pick3(valueOf(base, name), valueOf(ours, name), valueOf(theirs, name), true);
    if ('conflict' in picked) conflict(name);
    else if (picked.value !== undefined) merged[name] = picked.value;
  }
  return Object.keys(merged).length > 0 ? merged : undefined;
}

/**
 * Page and space variables on top of mergeContent (which merges the rest of each page):
 * every page both sides kept gets the three-way merge of its variables; pages added on one
 * side keep theirs as they are.
 */
function mergeAllVariables(base: RevisionDoc, ours: RevisionDoc, theirs: RevisionDoc, pages: RevisionPageDoc[], conflicts: MergeConflict[]): Variables {
  const baseById = new Map(base.pages.map((page) => [page.id, page]));
  const oursById = new Map(ours.pages.map((page) => [page.id, page]));
  const theirsById = new Map(theirs.pages.map((page) => [page.id, page]));
  for (const page of pages) {
    const [b, o, t] = [baseById.get(page.id), oursById.get(page.id), theirsById.get(page.id)];
    if (!o || !t) continue;
    const variables = mergeVariables(b?.variables, o.variables, t.variables, (name) =>
      conflicts.push({ page: { id: page.id, title: page.title }, reason: `variable "${name}" changed differently on both sides` }),
    );
    if (variables) page.variables = variables;
    else delete page.variables;
  }
  return mergeVariables(base.variables, ours.variables, theirs.variables, (name) =>
    conflicts.push({ reason: `variable "${name}" changed differently on both sides` }),
  );
}

/** Three-way merge of `theirs` into `ours` from `baseId`, with the fast paths when one side did not move. */
async function mergeRevisions(ctx: ContentContext, baseId: string, oursId: string, theirsId: string): Promise<MergedContent> {
  if (theirsId === baseId || theirsId === oursId) return loadRevision(ctx, oursId);
  if (oursId === baseId) return loadRevision(ctx, theirsId);
  const [base, ours, theirs] = await Promise.all([loadRevision(ctx, baseId), loadRevision(ctx, oursId), loadRevision(ctx, theirsId)]);
  const outcome = await mergeContent(base, ours, theirs, (refs) => loadBodies(ctx, refs));
  if (!outcome.ok) {
    mergeAllVariables(base, ours, theirs, [], outcome.conflicts);
    throw new MergeConflictError(outcome.conflicts);
  }
  const conflicts: MergeConflict[] = [];
  // Pages of the outcome may be shared with the (cached, immutable) revisions: copy before editing.
  const pages = outcome.pages.map((page) => ({ ...page }));
  const variables = mergeAllVariables(base, ours, theirs, pages, conflicts);
  if (conflicts.length > 0) throw new MergeConflictError(conflicts);
  assignPacks(pages, await storeBodies(ctx, outcome.newBodies));
  return { pages, files: outcome.files, variables };
}

/** Merges, then writes the result as a new revision of the space with parents [ours, theirs]. */
async function writeMerge(ctx: ContentContext, spaceId: string, ids: { base: string; ours: string; theirs: string }, userId: string): Promise<RevisionDoc> {
  const content = await mergeRevisions(ctx, ids.base, ids.ours, ids.theirs);
  return writeRevision(ctx, {
    spaceId,
    parents: [ids.ours, ids.theirs],
    pages: content.pages,
    files: content.files,
    createdBy: userId,
    variables: content.variables,
  });
}

/** The space and the change request as they are now; merged change requests take no more merges or updates. */
async function freshPair(ctx: ContentContext, spaceId: string, changeRequestId: string): Promise<[SpaceDoc, ChangeRequestDoc]> {
  const [space, changeRequest] = await Promise.all([freshSpace(ctx, spaceId), freshChangeRequest(ctx, changeRequestId)]);
  if (changeRequest.status === 'merged') throw httpError.conflict('This change request is already merged');
  return [space, changeRequest];
}

async function freshSpace(ctx: ContentContext, spaceId: string): Promise<SpaceDoc> {
  const space = await ctx.models.Space.findById(spaceId).lean<SpaceDoc>();
  if (!space || space.deletedAt) throw httpError.notFound('Space');
  return space;
}

async function freshChangeRequest(ctx: ContentContext, id: string): Promise<ChangeRequestDoc> {
  const changeRequest = await ctx.models.ChangeRequest.findById(id).lean<ChangeRequestDoc>();
  if (!changeRequest) throw httpError.notFound('Change request');
  return changeRequest;
}

export async function mergeChangeRequest(
  ctx: ContentContext,
  spaceId: string,
  changeRequestId: string,
  userId: string,
): Promise<{ revision: string; changeRequest: ChangeRequestDoc }> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const [space, changeRequest] = await freshPair(ctx, spaceId, changeRequestId);
    if (attempt === 0) await enforceMergeRules(ctx, space, changeRequest);
    const base = changeRequest.revisionMergedAncestor ?? changeRequest.revisionInitial;
    const revision = await writeMerge(ctx, spaceId, { base, ours: space.revisionId, theirs: changeRequest.revisionId }, userId);
    // Compare-and-set under the locks: the space and the change request must be as read.
    const merged = await withLock(ctx, spaceLock(spaceId), () =>
      withLock(ctx, changeRequestLock(changeRequest._id), async () => {
        const [nowSpace, nowChangeRequest] = await freshPair(ctx, spaceId, changeRequest._id);
        if (nowSpace.revisionId !== space.revisionId || nowSpace.version !== space.version || nowChangeRequest.revisionId !== changeRequest.revisionId)
          return null;
        const moved = await ctx.models.Space.updateOne(
          { _id: spaceId, version: space.version, revisionId: space.revisionId },
          { $set: { revisionId: revision._id, updatedAt: new Date() }, $inc: { version: 1, ...counterDelta(nowChangeRequest.status, 'merged') } },
        );
        if (moved.modifiedCount !== 1) return null;
        const now = new Date();
        return ctx.models.ChangeRequest.findOneAndUpdate(
          { _id: changeRequest._id },
          { $set: { status: 'merged', revisionMerged: revision._id, mergedBy: userId, mergedAt: now, updatedAt: now } },
          { returnDocument: 'after' },
        ).lean<ChangeRequestDoc>();
      }),
    );
    if (!merged) {
      // Another write advanced the space (or the change request) first: merge again on top of it.
      await discardRevision(ctx, revision._id);
      continue;
    }
    await publish(ctx, space, changeRequest._id, revision._id);
    return { revision: revision._id, changeRequest: merged };
  }
  throw httpError.conflict('The space changed too often concurrently; retry the merge');
}

export async function updateChangeRequestFromSpace(
  ctx: ContentContext,
  spaceId: string,
  changeRequestId: string,
  userId: string,
): Promise<{ revision: string; changeRequest: ChangeRequestDoc }> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
    const [space, changeRequest] = await freshPair(ctx, spaceId, changeRequestId);
    const base = changeRequest.revisionMergedAncestor ?? changeRequest.revisionInitial;
    if (space.revisionId === base) return { revision: changeRequest.revisionId, changeRequest };
    const revision = await writeMerge(ctx, spaceId, { base, ours: changeRequest.revisionId, theirs: space.revisionId }, userId);
    const updated = await withLock(ctx, changeRequestLock(changeRequest._id), () =>
      ctx.models.ChangeRequest.findOneAndUpdate(
        { _id: changeRequest._id, revisionId: changeRequest.revisionId, status: { $ne: 'merged' } },
        { $set: { revisionId: revision._id, revisionMergedAncestor: space.revisionId, updatedAt: new Date() }, $inc: { version: 1 } },
        { returnDocument: 'after' },
      ).lean<ChangeRequestDoc>(),
    );
    if (updated) return { revision: revision._id, changeRequest: updated };
    await discardRevision(ctx, revision._id);
  }
  throw httpError.conflict('The change request changed too often concurrently; retry the update');
}

async function publish(ctx: ContentContext, space: SpaceDoc, changeRequestId: string, revisionId: string): Promise<void> {
  const organizationId = space.organizationId;
  try {
    await ctx.events.publish(EVENTS.changeRequestMerged, { organizationId, spaceId: space._id, changeRequestId, revisionId }, { organizationId });
  } catch (error) {
    // The merge is done and durable; a lost notification must not turn it into an error.
    ctx.logger.error({ err: error, spaceId: space._id, changeRequestId }, 'could not publish change_request.merged');
  }
  await publishContentUpdated(ctx, space, revisionId);
}

import { EVENTS } from '@quire/async';
import { httpError } from '@quire/http';
import { documentCacheOf } from '@quire/runtime';
import { announce, spaceLock, withLock, type ContentContext, type SpaceDoc } from '../kernel';
import { revisionEvaluator } from './expressions';
import { pagePaths } from './page-tree';
import { buildWrittenPages, type PageWriteInput } from './page-writes';
import type { RevisionDoc } from './revision-store';
import { discardRevision, loadBodies, loadRevision, writeBuiltRevision, writeRevision, type BuiltContent } from './revisions';

/*
 * What the spaces code needs from the revisions code (contract between the two halves of
 * this service): the content a space starts with, copies of it, and its removal; the
 * moves of a space's primary content; and its reads and writes by other services (gRPC).
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
    const space = await findLiveSpace(ctx, spaceId);
    const current = await loadRevision(ctx, space.revisionId);
    const built = await build(current, space);
    const revision = await writeBuiltRevision(ctx, spaceId, [current._id], userId, built);
    const moved = await moveSpaceToRevision(ctx, space, revision._id);
    if (moved) {
      await publishContentUpdated(ctx, moved, revision._id);
      return { space: moved, revision };
    }
    await discardRevision(ctx, revision._id);
  }
  throw httpError.conflict('The space changed too often concurrently; retry');
}

/**
 * Compare-and-set of a space's primary revision, under the space's lock: moves `space` (as
 * it was read) to `revisionId` only if no other write moved or deleted it since. Null when one did.
 */
async function moveSpaceToRevision(ctx: ContentContext, space: SpaceDoc, revisionId: string): Promise<SpaceDoc | null> {
  return withLock(ctx, spaceLock(space._id), () =>
    ctx.models.Space.findOneAndUpdate(
      { _id: space._id, version: space.version, revisionId: space.revisionId, deletedAt: null },
      { $set: { revisionId, updatedAt: new Date() }, $inc: { version: 1 } },
      { returnDocument: 'after' },
    ).lean<SpaceDoc>(),
  );
}

/** A live space (404 when it is unknown, deleted or purged). */
/** The space unless deleted; `cached`: read through the document cache (for reads, never before a write). */
async function findLiveSpace(ctx: ContentContext, spaceId: string, options: { cached?: boolean } = {}): Promise<SpaceDoc> {
  const space = options.cached
    ? await documentCacheOf(ctx.redis, ctx.logger).findById<SpaceDoc>(ctx.models.Space, spaceId)
    : await ctx.models.Space.findById(spaceId).lean<SpaceDoc>();
  if (!space || space.deletedAt) throw httpError.notFound('Space');
  return space;
}

/** A space's content as another service reads it: the revision's pages (pre-order) and each page's body. */
export interface SpaceContent {
  space: SpaceDoc;
  revision: RevisionDoc;
  /** Page id → its markdown body: as stored, or with its expressions evaluated when asked; '' for computed pages. */
  pageBodies: Map<string, string>;
  /** When evaluated: the pages whose stored body has an expression (its answer may change with the page's title, path or variables). */
  evaluatedPages: Set<string>;
}

/**
 * A live space and its current revision, or `revisionId` when that is one of the space's:
 * 404 for an unknown, deleted or purged space, and for a revision that is not the space's.
 */
export async function findSpaceRevision(ctx: ContentContext, spaceId: string, revisionId?: string): Promise<{ space: SpaceDoc; revision: RevisionDoc }> {
  const space = await findLiveSpace(ctx, spaceId, { cached: true });
  const revision = await loadRevision(ctx, revisionId || space.revisionId);
  if (revision.spaceId !== space._id) throw httpError.notFound('Revision');
  return { space, revision };
}

/**
 * The content of a live space at its current revision, or at `revisionId` (see
 * findSpaceRevision), with every page's body read in one go (computed pages have none).
 * `evaluated`: each body's `{{ expression }}`s evaluated as the REST page reads do with
 * `evaluated=true` (space title and variables; page title, path and variables), in one pass.
 */
export async function readSpaceContent(
  ctx: ContentContext,
  spaceId: string,
  revisionId?: string,
  options: { evaluated?: boolean } = {},
): Promise<SpaceContent> {
  const { space, revision } = await findSpaceRevision(ctx, spaceId, revisionId);
  const bodies = await loadBodies(ctx, revision.pages);
  const evaluate = options.evaluated ? revisionEvaluator(space.title, revision, pagePaths(revision.pages), true) : null;
  const pageBodies = new Map<string, string>();
  const evaluatedPages = new Set<string>();
  for (const page of revision.pages) {
    const stored = page.computed ? '' : (bodies.get(page.bodyHash) ?? '');
    if (evaluate && stored.includes('{{')) evaluatedPages.add(page.id);
    pageBodies.set(page.id, evaluate ? evaluate(page, stored) : stored);
  }
  return { space, revision, pageBodies, evaluatedPages };
}

const staleRevision = () => httpError.conflict('The space is no longer at the expected revision: read it again');

/**
 * Moves a live space to a new revision with the page tree `pages` describes (see
 * buildWrittenPages; files and variables stay), if it is still at `expectedRevisionId`:
 * 409 when it is not, or when another write moves it before this one does (one attempt:
 * the caller reads again). Nothing is written when the tree is the current one (changed
 * false, the current revision). Publishes space.content_updated.
 */
export async function writeSpacePages(
  ctx: ContentContext,
  input: { spaceId: string; expectedRevisionId: string; userId: string; pages: readonly PageWriteInput[] },
): Promise<{ revisionId: string; changed: boolean }> {
  const space = await findLiveSpace(ctx, input.spaceId);
  if (space.revisionId !== input.expectedRevisionId) throw staleRevision();
  const current = await loadRevision(ctx, space.revisionId);
  const written = buildWrittenPages(current, input.pages);
  if (!written.changed) return { revisionId: current._id, changed: false };
  const revision = await writeBuiltRevision(ctx, space._id, [current._id], input.userId, {
    pages: written.pages,
    files: current.files,
    bodies: written.bodies,
    blobs: new Map(),
    variables: current.variables,
  });
  const moved = await moveSpaceToRevision(ctx, space, revision._id);
  if (!moved) {
    await discardRevision(ctx, revision._id);
    throw staleRevision();
  }
  await publishContentUpdated(ctx, moved, revision._id);
  return { revisionId: revision._id, changed: true };
}

/** Tells other services (and search warm-up) that the space's primary content moved; never fails the write. */
export async function publishContentUpdated(ctx: ContentContext, space: SpaceDoc, revisionId: string): Promise<void> {
  const organizationId = space.organizationId;
  await announce(ctx, EVENTS.spaceContentUpdated, { organizationId, spaceId: space._id, revisionId });
}

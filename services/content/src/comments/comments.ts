import { httpError, keysetPage, type KeysetPage } from '@quire/http';
import { newId, roleAtLeast } from '@quire/runtime';
import type { QueryFilter } from 'mongoose';
import { loadSpaceAccess, requireSpaceRole, SPACE_ACTION_ROLES, type SpaceAccess } from '../access';
import { changeRequestLock, spaceLock, withLock, type ContentContext } from '../kernel';
import { findChangeRequest, loadRevision, type ChangeRequestDoc } from '../revisions';
import type { CommentDoc, CommentReactionDoc, TableCellDoc } from './comment-store';

/*
 * Comments on a space's main content or on one of its change requests (the comment's
 * "scope"). Rules (one table, used by the checks and by the `permissions` object alike):
 * read sees; the comment role posts, replies, reacts and resolves/reopens; an author edits
 * the body of their own comment; authors delete their own, space admins any. Merged and
 * archived change requests stay open to comments, as in GitBook.
 *
 * Counters: Space.comments counts the open comments of the main content, ChangeRequest.
 * comments those of the change request; both move with $inc under the owner's lock. Every
 * write to one comment document (and to its replies) runs under that comment's lock:
 * FerretDB loses concurrent updates of one document.
 */

export const commentLock = (commentId: string) => `comment:${commentId}`;

/** Who is asking, about which space and (optionally) which change request of it. */
export interface CommentScope {
  access: SpaceAccess;
  changeRequest: ChangeRequestDoc | null;
  userId: string;
}

/** 404 when the space is missing or deleted, the change request is missing, or the caller has no access. */
export async function loadCommentScope(ctx: ContentContext, userId: string, spaceId: string, changeRequestIdOrNumber?: string): Promise<CommentScope> {
  const access = await loadSpaceAccess(ctx, userId, spaceId);
  const changeRequest = changeRequestIdOrNumber === undefined ? null : await findChangeRequest(ctx, access.space._id, changeRequestIdOrNumber);
  return { access, changeRequest, userId };
}

export function scopeFilter(scope: CommentScope): { spaceId: string; changeRequestId: string | null } {
  return { spaceId: scope.access.space._id, changeRequestId: scope.changeRequest?._id ?? null };
}

export interface CommentPermissions {
  view: boolean;
  edit: boolean;
  reply: boolean;
  delete: boolean;
}

/** What the caller may do with a comment or a reply posted by `authorId`. */
export function commentPermissions(scope: CommentScope, authorId: string): CommentPermissions {
  const role = scope.access.role;
  const canComment = roleAtLeast(role, SPACE_ACTION_ROLES.comment);
  const isAuthor = authorId === scope.userId;
  return {
    view: roleAtLeast(role, SPACE_ACTION_ROLES.view),
    edit: canComment && isAuthor,
    reply: canComment,
    delete: (canComment && isAuthor) || roleAtLeast(role, SPACE_ACTION_ROLES.admin),
  };
}

/** 403 unless commentPermissions allows `action` (the same answer the `permissions` object gives). */
export function requireCommentPermission(scope: CommentScope, authorId: string, action: 'edit' | 'reply' | 'delete'): void {
  if (commentPermissions(scope, authorId)[action]) return;
  const denied = {
    reply: `You need the ${SPACE_ACTION_ROLES.comment} role on this space to comment, reply, react or resolve (you have ${scope.access.role})`,
    edit: 'Only its author (with the comment role) can change the body of a comment or reply',
    delete: 'Only its author (with the comment role) or a space admin can delete a comment or reply',
  };
  throw httpError.forbidden(denied[action]);
}

/**
 * Runs `work` under the lock of the comment's owner (its change request, else its space).
 * Taken before the comment is written: when the lock is busy the request fails (503,
 * retry) with nothing changed, rather than after a write whose count is then lost.
 */
function withOwnerLock<T>(ctx: ContentContext, owner: { spaceId: string; changeRequestId: string | null }, work: () => Promise<T>): Promise<T> {
  return withLock(ctx, owner.changeRequestId ? changeRequestLock(owner.changeRequestId) : spaceLock(owner.spaceId), work);
}

/**
 * Moves the open-comment counter of the comment's owner (the change request, else the
 * space) by `delta`; run under withOwnerLock. False when the owner is gone (or, with
 * `live`, the space is deleted).
 */
async function adjustOpenComments(
  ctx: ContentContext,
  owner: { spaceId: string; changeRequestId: string | null },
  delta: number,
  live = false,
): Promise<boolean> {
  if (owner.changeRequestId) {
    const result = await ctx.models.ChangeRequest.updateOne({ _id: owner.changeRequestId }, { $inc: { comments: delta } });
    return result.matchedCount > 0;
  }
  const filter = live ? { _id: owner.spaceId, deletedAt: null } : { _id: owner.spaceId };
  const result = await ctx.models.Space.updateOne(filter, { $inc: { comments: delta } });
  return result.matchedCount > 0;
}

export interface NewComment {
  markdown: string;
  page?: string;
  node?: string;
  tableCell?: TableCellDoc;
}

export async function postComment(ctx: ContentContext, scope: CommentScope, input: NewComment): Promise<CommentDoc> {
  requireSpaceRole(scope.access, SPACE_ACTION_ROLES.comment, 'comment on it');
  const revisionId = scope.changeRequest?.revisionId ?? scope.access.space.revisionId;
  if (input.page !== undefined) {
    const revision = await loadRevision(ctx, revisionId);
    if (!revision.pages.some((page) => page.id === input.page)) {
      throw httpError.badRequest(`Invalid body: page: no page ${input.page} in the ${scope.changeRequest ? "change request's" : "space's"} current revision`);
    }
  }
  const comment: CommentDoc = {
    _id: newId(),
    ...scopeFilter(scope),
    revisionId,
    pageId: input.page ?? null,
    nodeId: input.node ?? null,
    tableCell: input.tableCell ?? null,
    reviewId: null,
    postedBy: scope.userId,
    postedAt: new Date(),
    editedAt: null,
    markdown: input.markdown,
    status: 'open',
    resolvedAt: null,
    resolvedBy: null,
    reactions: [],
    replies: 0,
    repliers: [],
  };
  // Counted once stored; a space deleted (or change request purged) meanwhile keeps no comment.
  const counted = await withOwnerLock(ctx, comment, async () => {
    await ctx.models.Comment.create(comment);
    if (await adjustOpenComments(ctx, comment, 1, true)) return true;
    await ctx.models.Comment.deleteOne({ _id: comment._id });
    return false;
  });
  if (!counted) throw httpError.notFound(scope.changeRequest ? 'Change request' : 'Space');
  return comment;
}

export interface CommentListFilters {
  order: 'asc' | 'desc';
  status: 'open' | 'resolved' | 'all';
  targetPage?: string;
  authors?: string[];
}

export function listComments(
  ctx: ContentContext,
  scope: CommentScope,
  filters: CommentListFilters,
  page: { limit: number; page?: string },
): Promise<KeysetPage<CommentDoc>> {
  const filter: QueryFilter<CommentDoc> = scopeFilter(scope);
  if (filters.status !== 'all') filter.status = filters.status;
  if (filters.targetPage) filter.pageId = filters.targetPage;
  if (filters.authors && filters.authors.length > 0) {
    const authors = [...new Set(filters.authors)];
    filter.postedBy = authors.length === 1 ? authors[0] : { $in: authors };
  }
  return keysetPage(ctx.models.Comment, { filter, sortField: 'postedAt', order: filters.order, limit: page.limit, page: page.page });
}

export async function findComment(ctx: ContentContext, scope: CommentScope, commentId: string): Promise<CommentDoc | null> {
  return ctx.models.Comment.findOne({ _id: commentId, ...scopeFilter(scope) }).lean<CommentDoc>();
}

/** The comment in the scope; 404 otherwise (a comment of another space or change request is not there). */
export async function getComment(ctx: ContentContext, scope: CommentScope, commentId: string): Promise<CommentDoc> {
  const comment = await findComment(ctx, scope, commentId);
  if (!comment) throw httpError.notFound('Comment');
  return comment;
}

/** Distinct emojis one user may have on one comment or reply (keeps a document bounded). */
export const MAX_REACTIONS_PER_USER = 20;

/** Reactions after the user adds then removes emojis; null when nothing changes (idempotent per user and emoji). */
export function applyReactions(
  current: readonly CommentReactionDoc[],
  userId: string,
  added: readonly string[] = [],
  removed: readonly string[] = [],
  now = new Date(),
): CommentReactionDoc[] | null {
  const has = (list: readonly CommentReactionDoc[], emoji: string) => list.some((r) => r.emoji === emoji && r.userId === userId);
  let next = [...current];
  for (const emoji of added) if (!has(next, emoji)) next.push({ emoji, userId, reactedAt: now });
  const gone = new Set(removed);
  next = next.filter((r) => r.userId !== userId || !gone.has(r.emoji));
  const mine = next.filter((r) => r.userId === userId).length;
  if (mine > MAX_REACTIONS_PER_USER && mine > current.filter((r) => r.userId === userId).length) {
    throw httpError.badRequest(`Invalid body: addedReactions: at most ${MAX_REACTIONS_PER_USER} different reactions per user`);
  }
  const same = next.length === current.length && next.every((r, i) => r === current[i]);
  return same ? null : next;
}

export interface CommentPatch {
  resolved?: boolean;
  markdown?: string;
  addedReactions?: string[];
  removedReactions?: string[];
}

export async function updateComment(ctx: ContentContext, scope: CommentScope, commentId: string, patch: CommentPatch): Promise<CommentDoc> {
  return withLock(ctx, commentLock(commentId), async () => {
    const current = await getComment(ctx, scope, commentId);
    requireCommentPermission(scope, current.postedBy, 'reply');
    if (patch.markdown !== undefined) requireCommentPermission(scope, current.postedBy, 'edit');
    const now = new Date();
    const set: Partial<CommentDoc> = {};
    if (patch.markdown !== undefined && patch.markdown !== current.markdown) Object.assign(set, { markdown: patch.markdown, editedAt: now });
    if (patch.resolved === true && current.status === 'open') Object.assign(set, { status: 'resolved', resolvedAt: now, resolvedBy: scope.userId });
    if (patch.resolved === false && current.status === 'resolved') Object.assign(set, { status: 'open', resolvedAt: null, resolvedBy: null });
    const reactions = applyReactions(current.reactions, scope.userId, patch.addedReactions, patch.removedReactions, now);
    if (reactions) set.reactions = reactions;
    if (Object.keys(set).length === 0) return current;
    const write = async () => {
      const updated = await ctx.models.Comment.findOneAndUpdate({ _id: current._id }, { $set: set }, { returnDocument: 'after' }).lean<CommentDoc>();
      if (!updated) throw httpError.notFound('Comment');
      if (set.status) await adjustOpenComments(ctx, current, set.status === 'open' ? 1 : -1);
      return updated;
    };
    return set.status ? withOwnerLock(ctx, current, write) : write();
  });
}

/** Deletes the comment and its replies; nothing to do when it does not exist. */
export async function deleteComment(ctx: ContentContext, scope: CommentScope, commentId: string): Promise<void> {
  await withLock(ctx, commentLock(commentId), async () => {
    const comment = await findComment(ctx, scope, commentId);
    if (!comment) return;
    requireCommentPermission(scope, comment.postedBy, 'delete');
    const remove = async () => {
      await ctx.models.Comment.deleteOne({ _id: comment._id });
      if (comment.status === 'open') await adjustOpenComments(ctx, comment, -1);
    };
    await (comment.status === 'open' ? withOwnerLock(ctx, comment, remove) : remove());
    await ctx.models.CommentReply.deleteMany({ commentId: comment._id });
  });
}

/** Distinct authors of the scope's comments and replies, by id. */
export async function commenterIds(ctx: ContentContext, scope: CommentScope): Promise<string[]> {
  const filter = scopeFilter(scope);
  const [commenters, repliers] = await Promise.all([ctx.models.Comment.distinct('postedBy', filter), ctx.models.CommentReply.distinct('postedBy', filter)]);
  return [...new Set([...commenters, ...repliers].map(String))].sort();
}

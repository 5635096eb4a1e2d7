import { httpError, keysetPage, type KeysetPage } from '@quire/http';
import { newId } from '@quire/runtime';
import { withLock, type ContentContext } from '../kernel';
import type { CommentDoc, CommentReplierDoc, CommentReplyDoc } from './comment-store';
import { applyReactions, commentLock, findComment, getComment, requireCommentPermission, type CommentScope } from './comments';

/*
 * Replies of a comment. Every write runs under the comment's lock, which also keeps the
 * comment's `replies` count and `repliers` summary in step with the replies themselves
 * (and stops a reply from landing on a comment being deleted).
 */

export async function postReply(ctx: ContentContext, scope: CommentScope, commentId: string, markdown: string): Promise<CommentReplyDoc> {
  return withLock(ctx, commentLock(commentId), async () => {
    const comment = await getComment(ctx, scope, commentId);
    requireCommentPermission(scope, comment.postedBy, 'reply');
    const reply: CommentReplyDoc = {
      _id: newId(),
      commentId: comment._id,
      spaceId: comment.spaceId,
      changeRequestId: comment.changeRequestId,
      postedBy: scope.userId,
      postedAt: new Date(),
      editedAt: null,
      markdown,
      reactions: [],
    };
    await ctx.models.CommentReply.create(reply);
    const mine = comment.repliers.find((r) => r.userId === scope.userId);
    const replier: CommentReplierDoc = { userId: scope.userId, count: (mine?.count ?? 0) + 1, updatedAt: reply.postedAt };
    const repliers = [...comment.repliers.filter((r) => r.userId !== scope.userId), replier];
    await ctx.models.Comment.updateOne({ _id: comment._id }, { $inc: { replies: 1 }, $set: { repliers } });
    return reply;
  });
}

export async function listReplies(
  ctx: ContentContext,
  scope: CommentScope,
  commentId: string,
  page: { limit: number; page?: string },
): Promise<KeysetPage<CommentReplyDoc>> {
  const comment = await getComment(ctx, scope, commentId);
  return keysetPage(ctx.models.CommentReply, { filter: { commentId: comment._id }, sortField: 'postedAt', order: 'asc', limit: page.limit, page: page.page });
}

async function findReply(ctx: ContentContext, comment: CommentDoc, replyId: string): Promise<CommentReplyDoc | null> {
  return ctx.models.CommentReply.findOne({ _id: replyId, commentId: comment._id }).lean<CommentReplyDoc>();
}

/** The reply of a comment in the scope; 404 when either is missing. */
export async function getReply(ctx: ContentContext, scope: CommentScope, commentId: string, replyId: string): Promise<CommentReplyDoc> {
  const reply = await findReply(ctx, await getComment(ctx, scope, commentId), replyId);
  if (!reply) throw httpError.notFound('Comment reply');
  return reply;
}

export interface ReplyPatch {
  markdown?: string;
  addedReactions?: string[];
  removedReactions?: string[];
}

export async function updateReply(ctx: ContentContext, scope: CommentScope, commentId: string, replyId: string, patch: ReplyPatch): Promise<CommentReplyDoc> {
  return withLock(ctx, commentLock(commentId), async () => {
    const current = await getReply(ctx, scope, commentId, replyId);
    requireCommentPermission(scope, current.postedBy, 'reply');
    if (patch.markdown !== undefined) requireCommentPermission(scope, current.postedBy, 'edit');
    const now = new Date();
    const set: Partial<CommentReplyDoc> = {};
    if (patch.markdown !== undefined && patch.markdown !== current.markdown) Object.assign(set, { markdown: patch.markdown, editedAt: now });
    const reactions = applyReactions(current.reactions, scope.userId, patch.addedReactions, patch.removedReactions, now);
    if (reactions) set.reactions = reactions;
    if (Object.keys(set).length === 0) return current;
    const updated = await ctx.models.CommentReply.findOneAndUpdate({ _id: current._id }, { $set: set }, { returnDocument: 'after' }).lean<CommentReplyDoc>();
    if (!updated) throw httpError.notFound('Comment reply');
    return updated;
  });
}

/** Deletes the reply and recounts the comment's replies; nothing to do when either is missing. */
export async function deleteReply(ctx: ContentContext, scope: CommentScope, commentId: string, replyId: string): Promise<void> {
  await withLock(ctx, commentLock(commentId), async () => {
    const comment = await findComment(ctx, scope, commentId);
    const reply = comment && (await findReply(ctx, comment, replyId));
    if (!comment || !reply) return;
    requireCommentPermission(scope, reply.postedBy, 'delete');
    await ctx.models.CommentReply.deleteOne({ _id: reply._id });
    // Counted from the replies themselves: the summary stays true even if an earlier write was cut short.
    const author = reply.postedBy;
    const [total, theirs, latest] = await Promise.all([
      ctx.models.CommentReply.countDocuments({ commentId: comment._id }),
      ctx.models.CommentReply.countDocuments({ commentId: comment._id, postedBy: author }),
      ctx.models.CommentReply.findOne({ commentId: comment._id, postedBy: author }).sort({ postedAt: -1 }).lean<CommentReplyDoc>(),
    ]);
    const others = comment.repliers.filter((r) => r.userId !== author);
    const repliers = theirs > 0 && latest ? [...others, { userId: author, count: theirs, updatedAt: latest.postedAt }] : others;
    await ctx.models.Comment.updateOne({ _id: comment._id }, { $set: { replies: total, repliers } });
  });
}

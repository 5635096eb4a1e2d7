import { apiUrl } from '@quire/http';
import type { PresentedUser } from '../kernel';
import { markdownToDocument } from '../revisions';
import type { CommentDoc, CommentReactionDoc, CommentReplyDoc } from './comment-store';
import { commentPermissions, type CommentScope } from './comments';

/*
 * Comment and CommentReply objects (spec "Comment", "CommentReply"; OpenAPI Comment,
 * CommentReply). Users come from one identity.BatchGetUsers call per response, made by
 * the route before presenting (loadUsers over userIdsOf the whole page).
 */

export type BodyFormat = 'markdown' | 'document';

export interface CommentPresentation {
  scope: CommentScope;
  users: Map<string, PresentedUser>;
  baseUrl: string;
  format?: BodyFormat;
}

const iso = (date: Date) => new Date(date).toISOString();

function userOf(p: CommentPresentation, id: string): PresentedUser {
  return p.users.get(id) as PresentedUser;
}

/** Every user a page of comments or replies shows: authors, resolvers, reacting users, repliers. */
export function userIdsOf(items: ReadonlyArray<CommentDoc | CommentReplyDoc>): string[] {
  return items.flatMap((item) => [
    item.postedBy,
    ...item.reactions.map((r) => r.userId),
    ...('repliers' in item ? item.repliers.map((r) => r.userId) : []),
    ...('resolvedBy' in item && item.resolvedBy ? [item.resolvedBy] : []),
  ]);
}

function presentBody(markdown: string, format: BodyFormat | undefined) {
  return format === 'document' ? { document: markdownToDocument(markdown) } : { markdown };
}

/** OpenAPI EmojiReactions: one entry per emoji in order of its first reaction, users in reaction order. */
function presentReactions(reactions: readonly CommentReactionDoc[], p: CommentPresentation) {
  const byEmoji = new Map<string, CommentReactionDoc[]>();
  for (const reaction of [...reactions].sort((a, b) => new Date(a.reactedAt).getTime() - new Date(b.reactedAt).getTime())) {
    byEmoji.set(reaction.emoji, [...(byEmoji.get(reaction.emoji) ?? []), reaction]);
  }
  return [...byEmoji].map(([emoji, list]) => ({
    emoji,
    count: list.length,
    users: list.map((r) => ({ user: userOf(p, r.userId), reactedAt: iso(r.reactedAt) })),
  }));
}

function commentPath(comment: Pick<CommentDoc, '_id' | 'spaceId' | 'changeRequestId'>): string {
  const owner = comment.changeRequestId ? `/v1/spaces/${comment.spaceId}/change-requests/${comment.changeRequestId}` : `/v1/spaces/${comment.spaceId}`;
  return `${owner}/comments/${comment._id}`;
}

export function presentComment(comment: CommentDoc, p: CommentPresentation) {
  const status =
    comment.status === 'resolved' && comment.resolvedAt && comment.resolvedBy
      ? { status: 'resolved' as const, resolvedAt: iso(comment.resolvedAt), resolvedBy: userOf(p, comment.resolvedBy) }
      : { status: 'open' as const };
  return {
    object: 'comment' as const,
    id: comment._id,
    postedBy: userOf(p, comment.postedBy),
    postedAt: iso(comment.postedAt),
    ...(comment.editedAt ? { editedAt: iso(comment.editedAt) } : {}),
    reactions: presentReactions(comment.reactions, p),
    replies: comment.replies,
    repliers: [...comment.repliers]
      .sort((a, b) => new Date(b.updatedAt).getTime() - new Date(a.updatedAt).getTime())
      .map((r) => ({ updatedAt: iso(r.updatedAt), count: r.count, user: userOf(p, r.userId) })),
    body: presentBody(comment.markdown, p.format),
    target: {
      ...(comment.nodeId ? { node: { id: comment.nodeId } } : {}),
      ...(comment.tableCell ? { tableCell: { record: comment.tableCell.record, definition: comment.tableCell.definition } } : {}),
      ...(comment.changeRequestId ? { changeRequest: comment.changeRequestId } : {}),
      ...(comment.reviewId ? { review: comment.reviewId } : {}),
      ...(comment.pageId ? { page: { id: comment.pageId } } : {}),
      space: comment.spaceId,
      revision: comment.revisionId,
    },
    urls: { location: apiUrl(p.baseUrl, commentPath(comment)) },
    permissions: commentPermissions(p.scope, comment.postedBy),
    ...status,
  };
}

export function presentReply(reply: CommentReplyDoc, p: CommentPresentation) {
  const location = `${commentPath({ _id: reply.commentId, spaceId: reply.spaceId, changeRequestId: reply.changeRequestId })}/replies/${reply._id}`;
  return {
    object: 'comment-reply' as const,
    id: reply._id,
    postedBy: userOf(p, reply.postedBy),
    postedAt: iso(reply.postedAt),
    ...(reply.editedAt ? { editedAt: iso(reply.editedAt) } : {}),
    reactions: presentReactions(reply.reactions, p),
    body: presentBody(reply.markdown, p.format),
    urls: { location: apiUrl(p.baseUrl, location) },
    permissions: commentPermissions(p.scope, reply.postedBy),
  };
}

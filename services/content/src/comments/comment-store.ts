import { Schema, type Model } from 'mongoose';
import type { ModelDefinitions } from '@quire/runtime';
import type { ContentContext, ContentModels } from '../kernel';

/*
 * Comments on a space's main content or on a change request, and their replies. Reactions
 * are stored flat, one entry per (emoji, user), and grouped per emoji when presented: no
 * nested arrays (FerretDB v1). `replies` and `repliers` are kept on the comment (written
 * under the comment's lock with its replies) so a page of comments is one query.
 */

export type CommentStatus = 'open' | 'resolved';

export interface CommentReactionDoc {
  emoji: string;
  userId: string;
  reactedAt: Date;
}

export interface CommentReplierDoc {
  userId: string;
  /** How many replies of this user the comment has. */
  count: number;
  /** When their latest reply was posted. */
  updatedAt: Date;
}

export interface TableCellDoc {
  record: string;
  definition: string;
}

export interface CommentDoc {
  _id: string;
  spaceId: string;
  /** The change request the comment was posted in; null for the space's main content. */
  changeRequestId: string | null;
  /** The revision the comment was posted on (the space's or the change request's current one). */
  revisionId: string;
  pageId: string | null;
  nodeId: string | null;
  tableCell: TableCellDoc | null;
  /** The review the comment belongs to (comments posted with a review); null otherwise. */
  reviewId: string | null;
  postedBy: string;
  postedAt: Date;
  editedAt: Date | null;
  markdown: string;
  status: CommentStatus;
  resolvedAt: Date | null;
  resolvedBy: string | null;
  reactions: CommentReactionDoc[];
  replies: number;
  repliers: CommentReplierDoc[];
}

export interface CommentReplyDoc {
  _id: string;
  commentId: string;
  spaceId: string;
  changeRequestId: string | null;
  postedBy: string;
  postedAt: Date;
  editedAt: Date | null;
  markdown: string;
  reactions: CommentReactionDoc[];
}

const reactionSchema = new Schema<CommentReactionDoc>({ emoji: String, userId: String, reactedAt: Date }, { _id: false });
const replierSchema = new Schema<CommentReplierDoc>({ userId: String, count: Number, updatedAt: Date }, { _id: false });
const tableCellSchema = new Schema<TableCellDoc>({ record: String, definition: String }, { _id: false });

const commentSchema = new Schema<CommentDoc>(
  {
    _id: String,
    spaceId: { type: String, required: true },
    changeRequestId: { type: String, default: null },
    revisionId: { type: String, required: true },
    pageId: { type: String, default: null },
    nodeId: { type: String, default: null },
    tableCell: { type: tableCellSchema, default: null },
    reviewId: { type: String, default: null },
    postedBy: { type: String, required: true },
    postedAt: { type: Date, required: true },
    editedAt: { type: Date, default: null },
    markdown: { type: String, required: true },
    status: { type: String, enum: ['open', 'resolved'], required: true },
    resolvedAt: { type: Date, default: null },
    resolvedBy: { type: String, default: null },
    reactions: { type: [reactionSchema], default: [] },
    replies: { type: Number, default: 0 },
    repliers: { type: [replierSchema], default: [] },
  },
  { versionKey: false },
);
// Lists of a space's (changeRequestId null) or a change request's comments, keyset on
// (postedAt, _id) either way, unfiltered or filtered by status, target page or author;
// the author index also answers the distinct authors of the commenters list.
commentSchema.index({ spaceId: 1, changeRequestId: 1, postedAt: -1, _id: -1 });
commentSchema.index({ spaceId: 1, changeRequestId: 1, status: 1, postedAt: -1, _id: -1 });
commentSchema.index({ spaceId: 1, changeRequestId: 1, pageId: 1, postedAt: -1, _id: -1 });
commentSchema.index({ spaceId: 1, changeRequestId: 1, postedBy: 1, postedAt: -1, _id: -1 });

const replySchema = new Schema<CommentReplyDoc>(
  {
    _id: String,
    commentId: { type: String, required: true },
    spaceId: { type: String, required: true },
    changeRequestId: { type: String, default: null },
    postedBy: { type: String, required: true },
    postedAt: { type: Date, required: true },
    editedAt: { type: Date, default: null },
    markdown: { type: String, required: true },
    reactions: { type: [reactionSchema], default: [] },
  },
  { versionKey: false },
);
// A comment's replies oldest first (keyset), a replier's latest reply, the distinct
// authors of a space's or change request's replies, and the purge of a space.
replySchema.index({ commentId: 1, postedAt: 1, _id: 1 });
replySchema.index({ commentId: 1, postedBy: 1, postedAt: -1 });
replySchema.index({ spaceId: 1, changeRequestId: 1, postedBy: 1 });

declare module '../kernel' {
  interface ContentModels {
    Comment: Model<CommentDoc>;
    CommentReply: Model<CommentReplyDoc>;
  }
}

export const commentModelDefinitions: ModelDefinitions<Pick<ContentModels, 'Comment' | 'CommentReply'>> = {
  Comment: [commentSchema, 'comments'],
  CommentReply: [replySchema, 'comment_replies'],
};

/** Removes every comment and reply of a purged space. */
export async function purgeSpaceComments(ctx: ContentContext, spaceId: string): Promise<void> {
  await Promise.all([ctx.models.Comment.deleteMany({ spaceId }), ctx.models.CommentReply.deleteMany({ spaceId })]);
}

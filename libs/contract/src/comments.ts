import { z } from 'zod';
import { document, permissions, timestamp, urls } from './common';
import { user } from './users';

/*
 * Comments on a space's content or on a change request, and their replies (spec "Comment",
 * "CommentReply"; GitBook's Comment and CommentReply).
 */

/** spec "Comment" `reactions`: one entry per emoji, its users in the order they reacted. */
export const emojiReaction = z
  .object({
    emoji: z.string(),
    count: z.number().int().min(1),
    users: z.array(z.object({ user, reactedAt: timestamp })),
  })
  .meta({ id: 'EmojiReaction' });

/** spec `body{markdown}`; with `format=document`, the body as a rich-text document (GitBook's JSON form of Document). */
export const commentBody = z.union([z.object({ markdown: z.string() }), z.object({ document })]).meta({ id: 'CommentBody' });

const commentPermissions = permissions('view', 'edit', 'reply', 'delete');

const commentFields = {
  object: z.literal('comment'),
  id: z.string(),
  postedBy: user,
  postedAt: timestamp,
  editedAt: timestamp.optional(),
  reactions: z.array(emojiReaction),
  replies: z.number().int().min(0),
  repliers: z.array(z.object({ updatedAt: timestamp, count: z.number().int().min(1), user })),
  body: commentBody,
  target: z.object({
    node: z.object({ id: z.string() }).optional(),
    tableCell: z.object({ record: z.string(), definition: z.string() }).optional(),
    changeRequest: z.string().optional(),
    review: z.string().optional(),
    page: z.object({ id: z.string() }).optional(),
    space: z.string(),
    revision: z.string(),
  }),
  urls: urls(['location']),
  permissions: commentPermissions,
};

/** spec "Comment": open, or resolved (then with `resolvedAt` and `resolvedBy`). */
export const comment = z
  .discriminatedUnion('status', [
    z.object({ ...commentFields, status: z.literal('open') }),
    z.object({ ...commentFields, status: z.literal('resolved'), resolvedAt: timestamp, resolvedBy: user }),
  ])
  .meta({ id: 'Comment' });

/** spec "CommentReply". */
export const commentReply = z
  .object({
    object: z.literal('comment-reply'),
    id: z.string(),
    postedBy: user,
    postedAt: timestamp,
    editedAt: timestamp.optional(),
    reactions: z.array(emojiReaction),
    body: commentBody,
    urls: urls(['location']),
    permissions: commentPermissions,
  })
  .meta({ id: 'CommentReply' });

import { idSchema, listQuerySchema, orderSchema } from '@quire/http';
import { z } from 'zod';
import { commentBodyToMarkdownForm, MAX_COMMENT_MARKDOWN } from './comment-body';

/** Request schemas of the comment routes (space comments and change request comments alike). */

const id = idSchema;

/** `{markdown}` (or GitBook's JSON document, turned into markdown) with some text in it. */
const commentBody = z.preprocess(
  commentBodyToMarkdownForm,
  z.object({
    markdown: z
      .string()
      .max(MAX_COMMENT_MARKDOWN)
      .refine((markdown) => markdown.trim() !== '', 'must not be empty'),
  }),
);
const emojis = z.array(z.string().trim().min(1).max(50)).max(50);

export const postCommentBody = z
  .object({
    body: commentBody,
    node: z.string().min(1).max(256).optional(),
    page: id.optional(),
    tableCell: z
      .object({ record: z.string().min(1).max(256), definition: z.string().min(1).max(256) })
      .strict()
      .optional(),
  })
  .strict();
export const updateCommentBody = z
  .object({ resolved: z.boolean().optional(), body: commentBody.optional(), addedReactions: emojis.optional(), removedReactions: emojis.optional() })
  .strict();
export const postReplyBody = z.object({ body: commentBody }).strict();
// Replies are not resolved on their own (a `resolved` field is refused by name).
export const updateReplyBody = z.object({ body: commentBody.optional(), addedReactions: emojis.optional(), removedReactions: emojis.optional() }).strict();

const format = z.enum(['markdown', 'document']).optional();
export const formatQuery = z.object({ format });

/** `authors=a&authors=b`, `authors=a,b` or both (and the indexed forms a query parser makes of many). */
function userIdList(value: unknown): unknown {
  if (value === undefined) return undefined;
  const values = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.values(value) : [value].flat();
  return values.flatMap((item) => (typeof item === 'string' ? item.split(',') : [item])).filter((item) => item !== '');
}

export const commentListQuery = listQuerySchema.extend({
  order: orderSchema,
  status: z.enum(['all', 'open', 'resolved']).default('all'),
  targetPage: id.optional(),
  authors: z.preprocess(userIdList, z.array(id).max(100)).optional(),
  format,
});
export const replyListQuery = listQuerySchema.extend({ format });

/* Path parameters under a comment scope's prefix (added to the scope's own). */
export const commentParam = { commentId: id };
export const replyParam = { commentId: id, commentReplyId: id };

import { listEnvelope, listQuerySchema, orderSchema, parseInput, principalOf, idParam, idSchema } from '@quire/http';
import { Router, type Request } from 'express';
import { z } from 'zod';
import type { CommentDoc, CommentReplyDoc } from '../db/comments';
import { commentBodyToMarkdownForm, MAX_COMMENT_MARKDOWN } from '../domain/comment-body';
import { deleteReply, getReply, listReplies, postReply, updateReply } from '../domain/comment-replies';
import { commenterIds, deleteComment, getComment, listComments, loadCommentScope, postComment, updateComment, type CommentScope } from '../domain/comments';
import type { ContentContext } from '../domain/context';
import { loadUsers } from './change-request-presenter';
import { loadMembers } from '../domain/organization-subjects';
import { presentComment, presentReply, userIdsOf, type BodyFormat } from './comment-presenter';
import { memoryPage } from './link-presenter';

/*
 * Space comments (/v1/spaces/{spaceId}/comments/**, /commenters) and change request
 * comments (the same under /v1/spaces/{spaceId}/change-requests/{changeRequestId}, which
 * takes the change request's id or number). Rules are in domain/comments.ts.
 */

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

const postCommentBody = z
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
const updateCommentBody = z
  .object({ resolved: z.boolean().optional(), body: commentBody.optional(), addedReactions: emojis.optional(), removedReactions: emojis.optional() })
  .strict();
const postReplyBody = z.object({ body: commentBody }).strict();
// Replies are not resolved on their own (a `resolved` field is refused by name).
const updateReplyBody = z.object({ body: commentBody.optional(), addedReactions: emojis.optional(), removedReactions: emojis.optional() }).strict();

const format = z.enum(['markdown', 'document']).optional();
const formatQuery = z.object({ format });

/** `authors=a&authors=b`, `authors=a,b` or both (and the indexed forms a query parser makes of many). */
function userIdList(value: unknown): unknown {
  if (value === undefined) return undefined;
  const values = typeof value === 'object' && value !== null && !Array.isArray(value) ? Object.values(value) : [value].flat();
  return values.flatMap((item) => (typeof item === 'string' ? item.split(',') : [item])).filter((item) => item !== '');
}

const commentListQuery = listQuerySchema.extend({
  order: orderSchema,
  status: z.enum(['all', 'open', 'resolved']).default('all'),
  targetPage: id.optional(),
  authors: z.preprocess(userIdList, z.array(id).max(100)).optional(),
  format,
});
const replyListQuery = listQuerySchema.extend({ format });

/** The two places comments live: a space's main content, and its change requests. */
const SCOPES = [
  { prefix: '/v1/spaces/:spaceId', changeRequest: false },
  { prefix: '/v1/spaces/:spaceId/change-requests/:changeRequestId', changeRequest: true },
] as const;

export function commentsRouter(ctx: ContentContext): Router {
  const router = Router();
  const baseUrl = ctx.config.PUBLIC_BASE_URL;

  async function presentComments(scope: CommentScope, comments: CommentDoc[], bodyFormat?: BodyFormat) {
    const users = await loadUsers(ctx, userIdsOf(comments));
    return comments.map((comment) => presentComment(comment, { scope, users, baseUrl, format: bodyFormat }));
  }

  async function presentReplies(scope: CommentScope, replies: CommentReplyDoc[], bodyFormat?: BodyFormat) {
    const users = await loadUsers(ctx, userIdsOf(replies));
    return replies.map((reply) => presentReply(reply, { scope, users, baseUrl, format: bodyFormat }));
  }

  for (const { prefix, changeRequest } of SCOPES) {
    const scopeOf = (req: Request) =>
      loadCommentScope(ctx, principalOf(req).userId, idParam(req, 'spaceId'), changeRequest ? idParam(req, 'changeRequestId') : undefined);

    /** For DELETE: a space, change request (or access) that is not there deletes nothing: 204. */
    const scopeOrNothing = (req: Request) =>
      scopeOf(req).catch((error: unknown) => {
        if ((error as { status?: number }).status === 404) return null;
        throw error;
      });

    const comments = `${prefix}/comments`;
    const comment = `${comments}/:commentId`;
    const replies = `${comment}/replies`;
    const reply = `${replies}/:commentReplyId`;

    router.get(comments, async (req, res) => {
      const query = parseInput(commentListQuery, req.query, 'query');
      const scope = await scopeOf(req);
      const page = await listComments(ctx, scope, query, query);
      res.json(listEnvelope(await presentComments(scope, page.items, query.format), page.count, page.next));
    });

    router.post(comments, async (req, res) => {
      const { format: bodyFormat } = parseInput(formatQuery, req.query, 'query');
      const body = parseInput(postCommentBody, req.body, 'body');
      const scope = await scopeOf(req);
      const posted = await postComment(ctx, scope, { markdown: body.body.markdown, page: body.page, node: body.node, tableCell: body.tableCell });
      const [presented] = await presentComments(scope, [posted], bodyFormat);
      res.json(presented);
    });

    router.get(comment, async (req, res) => {
      const { format: bodyFormat } = parseInput(formatQuery, req.query, 'query');
      const scope = await scopeOf(req);
      const [presented] = await presentComments(scope, [await getComment(ctx, scope, idParam(req, 'commentId'))], bodyFormat);
      res.json(presented);
    });

    router.put(comment, async (req, res) => {
      const { format: bodyFormat } = parseInput(formatQuery, req.query, 'query');
      const body = parseInput(updateCommentBody, req.body, 'body');
      const scope = await scopeOf(req);
      const updated = await updateComment(ctx, scope, idParam(req, 'commentId'), {
        resolved: body.resolved,
        markdown: body.body?.markdown,
        addedReactions: body.addedReactions,
        removedReactions: body.removedReactions,
      });
      const [presented] = await presentComments(scope, [updated], bodyFormat);
      res.json(presented);
    });

    router.delete(comment, async (req, res) => {
      const scope = await scopeOrNothing(req);
      if (scope) await deleteComment(ctx, scope, idParam(req, 'commentId'));
      res.status(204).end();
    });

    router.get(replies, async (req, res) => {
      const query = parseInput(replyListQuery, req.query, 'query');
      const scope = await scopeOf(req);
      const page = await listReplies(ctx, scope, idParam(req, 'commentId'), query);
      res.json(listEnvelope(await presentReplies(scope, page.items, query.format), page.count, page.next));
    });

    router.post(replies, async (req, res) => {
      const { format: bodyFormat } = parseInput(formatQuery, req.query, 'query');
      const body = parseInput(postReplyBody, req.body, 'body');
      const scope = await scopeOf(req);
      const posted = await postReply(ctx, scope, idParam(req, 'commentId'), body.body.markdown);
      const [presented] = await presentReplies(scope, [posted], bodyFormat);
      res.json(presented);
    });

    router.get(reply, async (req, res) => {
      const { format: bodyFormat } = parseInput(formatQuery, req.query, 'query');
      const scope = await scopeOf(req);
      const found = await getReply(ctx, scope, idParam(req, 'commentId'), idParam(req, 'commentReplyId'));
      const [presented] = await presentReplies(scope, [found], bodyFormat);
      res.json(presented);
    });

    router.put(reply, async (req, res) => {
      const { format: bodyFormat } = parseInput(formatQuery, req.query, 'query');
      const body = parseInput(updateReplyBody, req.body, 'body');
      const scope = await scopeOf(req);
      const updated = await updateReply(ctx, scope, idParam(req, 'commentId'), idParam(req, 'commentReplyId'), {
        markdown: body.body?.markdown,
        addedReactions: body.addedReactions,
        removedReactions: body.removedReactions,
      });
      const [presented] = await presentReplies(scope, [updated], bodyFormat);
      res.json(presented);
    });

    router.delete(reply, async (req, res) => {
      const scope = await scopeOrNothing(req);
      if (scope) await deleteReply(ctx, scope, idParam(req, 'commentId'), idParam(req, 'commentReplyId'));
      res.status(204).end();
    });

    // Authors of the scope's comments and replies who are still members of the organization.
    router.get(`${prefix}/commenters`, async (req, res) => {
      const query = parseInput(listQuerySchema, req.query, 'query');
      const scope = await scopeOf(req);
      const authors = await commenterIds(ctx, scope);
      const members = await loadMembers(ctx, scope.access.space.organizationId, authors);
      const listed = authors.filter((author) => members.has(author));
      res.json(
        memoryPage(
          listed,
          (author) => author,
          query,
          (author) => members.get(author),
        ),
      );
    });
  }

  return router;
}

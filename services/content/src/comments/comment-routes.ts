import { comment as commentObject, commentReply, list, member } from '@quire/contract';
import { byKey, listEnvelope, listQuerySchema, memoryPage, route, type Route } from '@quire/http';
import { z } from 'zod';
import { loadMembers } from '../access';
import { changeRequestParams, loadUsers, spaceParams, viewerWithOrgRole, type ContentContext } from '../kernel';
import { presentComment, presentReply, userIdsOf, type BodyFormat } from './comment-presenter';
import { deleteReply, getReply, listReplies, postReply, updateReply } from './comment-replies';
import {
  commentListQuery,
  commentParam,
  formatQuery,
  postCommentBody,
  postReplyBody,
  replyListQuery,
  replyParam,
  updateCommentBody,
  updateReplyBody,
} from './comment-schemas';
import type { CommentDoc, CommentReplyDoc } from './comment-store';
import { commenterIds, deleteComment, getComment, listComments, loadCommentScope, postComment, updateComment, type CommentScope } from './comments';

/*
 * Space comments (/v1/spaces/{spaceId}/comments/**, /commenters) and change request
 * comments (the same under /v1/spaces/{spaceId}/change-requests/{changeRequestId}, which
 * takes the change request's id or number). Rules are in comments.ts.
 */

/** The two places comments live: a space's main content, and its change requests. */
const SCOPES = [
  { prefix: '/v1/spaces/:spaceId', of: "the space's content", params: spaceParams.shape, changeRequest: false },
  { prefix: '/v1/spaces/:spaceId/change-requests/:changeRequestId', of: 'a change request', params: changeRequestParams.shape, changeRequest: true },
] as const;

/** A DELETE in a space, change request (or access) that is not there deletes nothing: 204. */
function orNothing<T>(loading: Promise<T>): Promise<T | null> {
  return loading.catch((error: unknown) => {
    if ((error as { status?: number }).status === 404) return null;
    throw error;
  });
}

export function commentRoutes(ctx: ContentContext): Route[] {
  const baseUrl = ctx.config.PUBLIC_BASE_URL;

  async function presentComments(scope: CommentScope, comments: CommentDoc[], bodyFormat?: BodyFormat) {
    const users = await loadUsers(ctx, userIdsOf(comments), viewerWithOrgRole(scope.access.orgRole));
    return comments.map((comment) => presentComment(comment, { scope, users, baseUrl, format: bodyFormat }));
  }

  async function presentReplies(scope: CommentScope, replies: CommentReplyDoc[], bodyFormat?: BodyFormat) {
    const users = await loadUsers(ctx, userIdsOf(replies), viewerWithOrgRole(scope.access.orgRole));
    return replies.map((reply) => presentReply(reply, { scope, users, baseUrl, format: bodyFormat }));
  }

  return SCOPES.flatMap(({ prefix, of, params: scopeParams, changeRequest }) => {
    const scopeOf = (userId: string, params: { spaceId: string; changeRequestId?: string }) =>
      loadCommentScope(ctx, userId, params.spaceId, changeRequest ? params.changeRequestId : undefined);

    const comments = `${prefix}/comments`;
    const comment = `${comments}/:commentId`;
    const replies = `${comment}/replies`;
    const reply = `${replies}/:commentReplyId`;
    const commentParams = z.object({ ...scopeParams, ...commentParam });
    const replyParams = z.object({ ...scopeParams, ...replyParam });

    return [
      route({
        method: 'get',
        path: comments,
        summary: `List the comments on ${of}`,
        response: list(commentObject),
        params: z.object(scopeParams),
        query: commentListQuery,
        handler: async ({ caller, params, query }) => {
          const scope = await scopeOf(caller.userId, params);
          const page = await listComments(ctx, scope, query, query);
          return listEnvelope(await presentComments(scope, page.items, query.format), page.count, page.next);
        },
      }),

      route({
        method: 'post',
        path: comments,
        summary: `Comment on ${of}`,
        response: commentObject,
        params: z.object(scopeParams),
        query: formatQuery,
        body: postCommentBody,
        handler: async ({ caller, params, query, body }) => {
          const scope = await scopeOf(caller.userId, params);
          const posted = await postComment(ctx, scope, { markdown: body.body.markdown, page: body.page, node: body.node, tableCell: body.tableCell });
          const [presented] = await presentComments(scope, [posted], query.format);
          return presented;
        },
      }),

      route({
        method: 'get',
        path: comment,
        summary: `Get a comment on ${of}`,
        response: commentObject,
        params: commentParams,
        query: formatQuery,
        handler: async ({ caller, params, query }) => {
          const scope = await scopeOf(caller.userId, params);
          const [presented] = await presentComments(scope, [await getComment(ctx, scope, params.commentId)], query.format);
          return presented;
        },
      }),

      route({
        method: 'put',
        path: comment,
        summary: `Edit, resolve, reopen or react to a comment on ${of}`,
        response: commentObject,
        params: commentParams,
        query: formatQuery,
        body: updateCommentBody,
        handler: async ({ caller, params, query, body }) => {
          const scope = await scopeOf(caller.userId, params);
          const updated = await updateComment(ctx, scope, params.commentId, {
            resolved: body.resolved,
            markdown: body.body?.markdown,
            addedReactions: body.addedReactions,
            removedReactions: body.removedReactions,
          });
          const [presented] = await presentComments(scope, [updated], query.format);
          return presented;
        },
      }),

      route({
        method: 'delete',
        path: comment,
        summary: `Delete a comment on ${of} with its replies`,
        params: commentParams,
        handler: async ({ caller, params }) => {
          const scope = await orNothing(scopeOf(caller.userId, params));
          if (scope) await deleteComment(ctx, scope, params.commentId);
        },
      }),

      route({
        method: 'get',
        path: replies,
        summary: `List the replies to a comment on ${of}`,
        response: list(commentReply),
        params: commentParams,
        query: replyListQuery,
        handler: async ({ caller, params, query }) => {
          const scope = await scopeOf(caller.userId, params);
          const page = await listReplies(ctx, scope, params.commentId, query);
          return listEnvelope(await presentReplies(scope, page.items, query.format), page.count, page.next);
        },
      }),

      route({
        method: 'post',
        path: replies,
        summary: `Reply to a comment on ${of}`,
        response: commentReply,
        params: commentParams,
        query: formatQuery,
        body: postReplyBody,
        handler: async ({ caller, params, query, body }) => {
          const scope = await scopeOf(caller.userId, params);
          const posted = await postReply(ctx, scope, params.commentId, body.body.markdown);
          const [presented] = await presentReplies(scope, [posted], query.format);
          return presented;
        },
      }),

      route({
        method: 'get',
        path: reply,
        summary: `Get a reply to a comment on ${of}`,
        response: commentReply,
        params: replyParams,
        query: formatQuery,
        handler: async ({ caller, params, query }) => {
          const scope = await scopeOf(caller.userId, params);
          const found = await getReply(ctx, scope, params.commentId, params.commentReplyId);
          const [presented] = await presentReplies(scope, [found], query.format);
          return presented;
        },
      }),

      route({
        method: 'put',
        path: reply,
        summary: `Edit or react to a reply on ${of}`,
        response: commentReply,
        params: replyParams,
        query: formatQuery,
        body: updateReplyBody,
        handler: async ({ caller, params, query, body }) => {
          const scope = await scopeOf(caller.userId, params);
          const updated = await updateReply(ctx, scope, params.commentId, params.commentReplyId, {
            markdown: body.body?.markdown,
            addedReactions: body.addedReactions,
            removedReactions: body.removedReactions,
          });
          const [presented] = await presentReplies(scope, [updated], query.format);
          return presented;
        },
      }),

      route({
        method: 'delete',
        path: reply,
        summary: `Delete a reply on ${of}`,
        params: replyParams,
        handler: async ({ caller, params }) => {
          const scope = await orNothing(scopeOf(caller.userId, params));
          if (scope) await deleteReply(ctx, scope, params.commentId, params.commentReplyId);
        },
      }),

      // Authors of the scope's comments and replies who are still members of the organization.
      route({
        method: 'get',
        path: `${prefix}/commenters`,
        summary: `List the members who commented on ${of}`,
        response: list(member),
        params: z.object(scopeParams),
        query: listQuerySchema,
        handler: async ({ caller, params, query }) => {
          const scope = await scopeOf(caller.userId, params);
          const authors = await commenterIds(ctx, scope);
          const members = await loadMembers(ctx, scope.access.space.organizationId, authors, viewerWithOrgRole(scope.access.orgRole));
          const listed = authors.filter((author) => members.has(author));
          return memoryPage(
            listed,
            byKey((author) => author),
            query,
            (author) => members.get(author),
          );
        },
      }),
    ];
  });
}

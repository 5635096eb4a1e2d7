import {
  changeRequest as changeRequestObject,
  changeRequestContentUpdate,
  changeRequestMerged,
  changeRequestPdf,
  changeRequestRequestedReviewers,
  changeRequestReview,
  changeRequestUpdated,
  list,
} from '@quire/contract';
import { created, httpError, listEnvelope, route, signedUrl, type KeysetPage, type Route } from '@quire/http';
import { z } from 'zod';
import { getStanding, loadSpaceAccess, requireSpaceRole, SPACE_ACTION_ROLES } from '../access';
import { changeRequestParams, loadUsers, organizationParams, spaceParams, viewerWithOrgRole, type ContentContext, type UserViewer } from '../kernel';
import { findChangeRequest, loadRevision, writeChangeRequestContent, type ChangeRequestDoc } from '../revisions';
import { templateChanges } from '../templates';
import { mergeChangeRequest, updateChangeRequestFromSpace } from './change-request-merge';
import { presentChangeRequest, presentContentUpdate, presentRequestedReviewers, presentReview, userIdsOf } from './change-request-presenter';
import {
  changeRequestListQuery,
  contentChangesBody,
  contentChangesQuery,
  createChangeRequestBody,
  organizationChangeRequestListQuery,
  patchChangeRequestBody,
  pdfQuery,
  requestedReviewersBody,
  reviewBody,
} from './change-request-schemas';
import {
  createChangeRequest,
  latestReviews,
  listChangeRequests,
  listOrganizationChangeRequests,
  patchChangeRequest,
  requestReviewers,
  spaceRevisionOf,
  submitReview,
} from './change-requests';

/*
 * Roles (design.md §4, SPACE_ACTION_ROLES): read lists and reads; edit creates, edits,
 * writes content and updates from the space; review (GitBook's reviewer) reviews and
 * merges; a requested reviewer may review with any role.
 */

const CR = '/v1/spaces/:spaceId/change-requests/:changeRequestId';

export function changeRequestRoutes(ctx: ContentContext): Route[] {
  const baseUrl = ctx.config.PUBLIC_BASE_URL;

  /** The change request (by id or number) of a space the caller can see; 404 otherwise. */
  async function loadChangeRequest(userId: string, params: { spaceId: string; changeRequestId: string }) {
    const access = await loadSpaceAccess(ctx, userId, params.spaceId);
    const changeRequest = await findChangeRequest(ctx, access.space._id, params.changeRequestId);
    return { access, changeRequest };
  }

  async function presentOne(changeRequest: ChangeRequestDoc, viewer: UserViewer, spaceRevisionId?: string) {
    const revisionId = spaceRevisionId ?? (await spaceRevisionOf(ctx, changeRequest.spaceId));
    const users = await loadUsers(ctx, userIdsOf([changeRequest]), viewer);
    return presentChangeRequest(changeRequest, { spaceRevisionId: revisionId, users, baseUrl });
  }

  async function presentList(page: KeysetPage<ChangeRequestDoc>, spaceRevisions: Map<string, string>, viewer: UserViewer) {
    const users = await loadUsers(ctx, userIdsOf(page.items), viewer);
    const items = page.items.map((cr) => presentChangeRequest(cr, { spaceRevisionId: spaceRevisions.get(cr.spaceId) ?? '', users, baseUrl }));
    return listEnvelope(items, page.count, page.next);
  }

  return [
    route({
      method: 'get',
      path: '/v1/spaces/:spaceId/change-requests',
      summary: "List a space's change requests",
      response: list(changeRequestObject),
      params: spaceParams,
      query: changeRequestListQuery,
      handler: async ({ caller, params, query }) => {
        const access = await loadSpaceAccess(ctx, caller.userId, params.spaceId);
        requireSpaceRole(access, SPACE_ACTION_ROLES.view, 'list change requests');
        const page = await listChangeRequests(ctx, { spaceIds: [access.space._id] }, query, query);
        return presentList(page, new Map([[access.space._id, access.space.revisionId]]), viewerWithOrgRole(access.orgRole));
      },
    }),

    route({
      method: 'post',
      path: '/v1/spaces/:spaceId/change-requests',
      summary: 'Create a change request, optionally from a template',
      response: changeRequestObject,
      status: 201,
      params: spaceParams,
      body: createChangeRequestBody,
      handler: async ({ caller, params, body }) => {
        const access = await loadSpaceAccess(ctx, caller.userId, params.spaceId);
        requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'create change requests');
        // The template is checked against the current content before anything is created.
        const changes = body.template ? await templateChanges(ctx, await loadRevision(ctx, access.space.revisionId), body.template, 'template.') : undefined;
        const changeRequest = await createChangeRequest(ctx, access.space, {
          userId: caller.userId,
          subject: body.subject,
          status: body.status,
          changes,
          conversationsIssuesCluster: body.conversationsIssuesCluster,
        });
        const presented = await presentOne(changeRequest, viewerWithOrgRole(access.orgRole));
        return created(presented.urls.location, presented);
      },
    }),

    route({
      method: 'get',
      path: '/v1/orgs/:organizationId/change-requests',
      summary: "List the change requests of the organization's spaces the caller can access",
      response: list(changeRequestObject),
      params: organizationParams,
      query: organizationChangeRequestListQuery,
      handler: async ({ caller, params, query }) => {
        const { page, spaceRevisions } = await listOrganizationChangeRequests(ctx, caller.userId, params.organizationId, query);
        const standing = await getStanding(ctx, params.organizationId, caller.userId);
        return presentList(page, spaceRevisions, viewerWithOrgRole(standing.orgRole));
      },
    }),

    route({
      method: 'get',
      path: CR,
      summary: 'Get a change request',
      response: changeRequestObject,
      params: changeRequestParams,
      handler: async ({ caller, params }) => {
        const { access, changeRequest } = await loadChangeRequest(caller.userId, params);
        return presentOne(changeRequest, viewerWithOrgRole(access.orgRole), access.space.revisionId);
      },
    }),

    route({
      method: 'patch',
      path: CR,
      summary: "Update a change request's subject, description or status",
      response: changeRequestObject,
      params: changeRequestParams,
      body: patchChangeRequestBody,
      handler: async ({ caller, params, body }) => {
        const { access, changeRequest } = await loadChangeRequest(caller.userId, params);
        requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'edit change requests');
        return presentOne(await patchChangeRequest(ctx, changeRequest, body), viewerWithOrgRole(access.orgRole));
      },
    }),

    // OpenAPI updateChangeRequestContent: the ChangeRequest, or with compat=false ChangeRequestContentUpdate.
    route({
      method: 'post',
      path: `${CR}/content`,
      summary: "Apply a batch of content changes to a change request's content",
      response: z.union([changeRequestObject, changeRequestContentUpdate]),
      params: changeRequestParams,
      query: contentChangesQuery,
      body: contentChangesBody,
      handler: async ({ caller, params, query: { compat }, body }) => {
        const { access, changeRequest } = await loadChangeRequest(caller.userId, params);
        requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'edit change request content');
        const written = await writeChangeRequestContent(ctx, changeRequest, caller.userId, body.changes);
        const presented = await presentOne(written.changeRequest, viewerWithOrgRole(access.orgRole));
        return compat === false ? presentContentUpdate(presented, { results: written.results, files: written.files, config: ctx.config }) : presented;
      },
    }),

    route({
      method: 'post',
      path: `${CR}/merge`,
      summary: 'Merge a change request into its space',
      response: changeRequestMerged,
      params: changeRequestParams,
      handler: async ({ caller, params }) => {
        const { access, changeRequest } = await loadChangeRequest(caller.userId, params);
        requireSpaceRole(access, SPACE_ACTION_ROLES.merge, 'merge change requests');
        const merged = await mergeChangeRequest(ctx, access.space._id, changeRequest._id, caller.userId);
        return { revision: merged.revision, result: 'merge' as const };
      },
    }),

    route({
      method: 'post',
      path: `${CR}/update`,
      summary: "Bring the space's content into a change request",
      response: changeRequestUpdated,
      params: changeRequestParams,
      handler: async ({ caller, params }) => {
        const { access, changeRequest } = await loadChangeRequest(caller.userId, params);
        requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'update change requests');
        const updated = await updateChangeRequestFromSpace(ctx, access.space._id, changeRequest._id, caller.userId);
        return { revision: updated.revision, result: 'update' as const };
      },
    }),

    route({
      method: 'get',
      path: `${CR}/reviews`,
      summary: "List a change request's reviews, newest first",
      response: list(changeRequestReview),
      params: changeRequestParams,
      handler: async ({ caller, params }) => {
        const { access, changeRequest } = await loadChangeRequest(caller.userId, params);
        const latest = latestReviews(changeRequest.reviews);
        const users = await loadUsers(
          ctx,
          changeRequest.reviews.map((review) => review.userId),
          viewerWithOrgRole(access.orgRole),
        );
        const items = [...changeRequest.reviews]
          .reverse()
          .map((review) => presentReview(review, { changeRequest, outdated: latest.get(review.userId) !== review, users, baseUrl }));
        return listEnvelope(items, items.length);
      },
    }),

    route({
      method: 'post',
      path: `${CR}/reviews`,
      summary: 'Approve a change request or request changes',
      response: changeRequestReview,
      status: 201,
      params: changeRequestParams,
      body: reviewBody,
      handler: async ({ caller, params, body }) => {
        const { userId } = caller;
        const { access, changeRequest } = await loadChangeRequest(userId, params);
        if (!changeRequest.requestedReviewers.includes(userId)) requireSpaceRole(access, SPACE_ACTION_ROLES.review, 'review change requests');
        const { changeRequest: updated, review } = await submitReview(ctx, changeRequest, { userId, status: body.status });
        const users = await loadUsers(ctx, [userId], viewerWithOrgRole(access.orgRole));
        const presented = presentReview(review, { changeRequest: updated, outdated: false, users, baseUrl });
        return created(presented.urls.location, presented);
      },
    }),

    route({
      method: 'post',
      path: `${CR}/requested-reviewers`,
      summary: 'Request reviews of a change request from members',
      response: changeRequestRequestedReviewers,
      params: changeRequestParams,
      body: requestedReviewersBody,
      handler: async ({ caller, params, body }) => {
        const { userId } = caller;
        const { access, changeRequest } = await loadChangeRequest(userId, params);
        requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'request reviewers');
        let updated = await requestReviewers(ctx, access.space, changeRequest, body.users);
        if (body.subject !== undefined || body.description !== undefined)
          updated = await patchChangeRequest(ctx, updated, { subject: body.subject, description: body.description });
        const users = await loadUsers(ctx, [userId, ...body.users], viewerWithOrgRole(access.orgRole));
        return presentRequestedReviewers(body.users, { changeRequest: updated, requestedBy: userId, requestedAt: new Date(), users });
      },
    }),

    route({
      method: 'get',
      path: `${CR}/pdf`,
      summary: "Get a signed, expiring address of a change request's content as PDF",
      response: changeRequestPdf,
      params: changeRequestParams,
      query: pdfQuery,
      handler: async ({ caller, params, query }) => {
        const { changeRequest } = await loadChangeRequest(caller.userId, params);
        if (query.only && !query.page) throw httpError.badRequest('Invalid query: page: required when only is true');
        if (query.page) {
          const revision = await loadRevision(ctx, changeRequest.revisionId);
          if (!revision.pages.some((page) => page.id === query.page)) throw httpError.notFound('Page');
        }
        const page = query.page ?? '';
        const only = query.only ? '1' : '0';
        const path = `/v1/public/content/pdf/${changeRequest._id}/${changeRequest.revisionId}`;
        return { url: signedUrl(ctx.config, path, [page, only], { ...(page ? { page } : {}), only }) };
      },
    }),
  ];
}

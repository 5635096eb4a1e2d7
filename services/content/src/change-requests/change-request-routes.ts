import { httpError, listEnvelope, parseInput, principalOf, idParam } from '@quire/http';
import { Router, type Request } from 'express';
import type { ChangeRequestDoc } from '../db/revisions';
import { loadSpaceAccess, requireMember, requireSpaceRole, type SpaceAccess } from '../domain/access';
import { mergeChangeRequest, updateChangeRequestFromSpace } from '../domain/change-request-merge';
import {
  createChangeRequest,
  findChangeRequest,
  latestReviews,
  listChangeRequests,
  listOrganizationChangeRequests,
  patchChangeRequest,
  requestReviewers,
  spaceRevisionOf,
  submitReview,
  writeChangeRequestContent,
} from '../domain/change-requests';
import type { ContentContext } from '../domain/context';
import { SPACE_ACTION_ROLES } from '../domain/roles';
import { signedUrl } from '../domain/signed-urls';
import { templateChanges } from '../domain/templates';
import { loadOrgView, visibleSpacesFilter } from '../domain/visibility';
import { loadRevision } from '../domain/revisions';
import {
  changeRequestListQuery,
  contentChangesBody,
  contentChangesQuery,
  organizationChangeRequestListQuery,
  createChangeRequestBody,
  patchChangeRequestBody,
  pdfQuery,
  requestedReviewersBody,
  reviewBody,
} from './change-request-schemas';
import { loadUsers, presentChangeRequest, presentContentUpdate, presentReview, userIdsOf } from './change-request-presenter';

/*
 * Roles (design.md §4, SPACE_ACTION_ROLES): read lists and reads; edit creates, edits,
 * writes content and updates from the space; review (GitBook's reviewer) reviews and
 * merges; a requested reviewer may review with any role.
 */

const CR = '/v1/spaces/:spaceId/change-requests/:changeRequestId';

async function loadChangeRequest(ctx: ContentContext, req: Request): Promise<{ access: SpaceAccess; changeRequest: ChangeRequestDoc; userId: string }> {
  const { userId } = principalOf(req);
  const access = await loadSpaceAccess(ctx, userId, idParam(req, 'spaceId'));
  const changeRequest = await findChangeRequest(ctx, access.space._id, idParam(req, 'changeRequestId'));
  return { access, changeRequest, userId };
}

async function presentOne(ctx: ContentContext, changeRequest: ChangeRequestDoc, spaceRevisionId?: string) {
  const revisionId = spaceRevisionId ?? (await spaceRevisionOf(ctx, changeRequest.spaceId));
  const users = await loadUsers(ctx, userIdsOf([changeRequest]));
  return presentChangeRequest(changeRequest, revisionId, users, ctx.config.PUBLIC_BASE_URL);
}

async function presentList(ctx: ContentContext, page: { items: ChangeRequestDoc[]; count: number; next?: string }, spaceRevisions: Map<string, string>) {
  const users = await loadUsers(ctx, userIdsOf(page.items));
  const items = page.items.map((cr) => presentChangeRequest(cr, spaceRevisions.get(cr.spaceId) ?? '', users, ctx.config.PUBLIC_BASE_URL));
  return listEnvelope(items, page.count, page.next);
}

export function changeRequestsRouter(ctx: ContentContext): Router {
  const router = Router();

  router.get('/v1/spaces/:spaceId/change-requests', async (req, res) => {
    const query = parseInput(changeRequestListQuery, req.query, 'query');
    const access = await loadSpaceAccess(ctx, principalOf(req).userId, idParam(req, 'spaceId'));
    requireSpaceRole(access, SPACE_ACTION_ROLES.view, 'list change requests');
    const page = await listChangeRequests(ctx, { spaceIds: [access.space._id] }, query, query);
    res.json(await presentList(ctx, page, new Map([[access.space._id, access.space.revisionId]])));
  });

  router.post('/v1/spaces/:spaceId/change-requests', async (req, res) => {
    const body = parseInput(createChangeRequestBody, req.body, 'body');
    const { userId } = principalOf(req);
    const access = await loadSpaceAccess(ctx, userId, idParam(req, 'spaceId'));
    requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'create change requests');
    // The template is checked against the current content before anything is created.
    const changes = body.template ? await templateChanges(ctx, await loadRevision(ctx, access.space.revisionId), body.template, 'template.') : undefined;
    const changeRequest = await createChangeRequest(ctx, access.space, { userId, subject: body.subject, status: body.status, changes });
    const presented = await presentOne(ctx, changeRequest);
    res.status(201).location(presented.urls.location).json(presented);
  });

  router.get('/v1/orgs/:organizationId/change-requests', async (req, res) => {
    const query = parseInput(organizationChangeRequestListQuery, req.query, 'query');
    const standing = await requireMember(ctx, idParam(req, 'organizationId'), principalOf(req).userId);
    const view = await loadOrgView(ctx, standing);
    const { page, spaceRevisions } = await listOrganizationChangeRequests(ctx, visibleSpacesFilter(view), query);
    res.json(await presentList(ctx, page, spaceRevisions));
  });

  router.get(CR, async (req, res) => {
    const { access, changeRequest } = await loadChangeRequest(ctx, req);
    res.json(await presentOne(ctx, changeRequest, access.space.revisionId));
  });

  router.patch(CR, async (req, res) => {
    const body = parseInput(patchChangeRequestBody, req.body, 'body');
    const { access, changeRequest } = await loadChangeRequest(ctx, req);
    requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'edit change requests');
    const updated = await patchChangeRequest(ctx, changeRequest, body);
    res.json(await presentOne(ctx, updated));
  });

  // OpenAPI updateChangeRequestContent: the ChangeRequest, or with compat=false ChangeRequestContentUpdate.
  router.post(`${CR}/content`, async (req, res) => {
    const { compat } = parseInput(contentChangesQuery, req.query, 'query');
    const body = parseInput(contentChangesBody, req.body, 'body');
    const { access, changeRequest, userId } = await loadChangeRequest(ctx, req);
    requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'edit change request content');
    const written = await writeChangeRequestContent(ctx, changeRequest, userId, body.changes);
    const presented = await presentOne(ctx, written.changeRequest);
    res.json(compat === false ? presentContentUpdate(presented, written.results, written.files, ctx.config) : presented);
  });

  router.post(`${CR}/merge`, async (req, res) => {
    const { access, changeRequest, userId } = await loadChangeRequest(ctx, req);
    requireSpaceRole(access, SPACE_ACTION_ROLES.merge, 'merge change requests');
    const merged = await mergeChangeRequest(ctx, access.space._id, changeRequest._id, userId);
    res.json({ revision: merged.revision, result: 'merge' });
  });

  router.post(`${CR}/update`, async (req, res) => {
    const { access, changeRequest, userId } = await loadChangeRequest(ctx, req);
    requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'update change requests');
    const updated = await updateChangeRequestFromSpace(ctx, access.space._id, changeRequest._id, userId);
    res.json({ revision: updated.revision, result: 'update' });
  });

  router.get(`${CR}/reviews`, async (req, res) => {
    const { changeRequest } = await loadChangeRequest(ctx, req);
    const latest = latestReviews(changeRequest.reviews);
    const users = await loadUsers(
      ctx,
      changeRequest.reviews.map((review) => review.userId),
    );
    const items = [...changeRequest.reviews]
      .reverse()
      .map((review) => presentReview(review, changeRequest, latest.get(review.userId) !== review, users, ctx.config.PUBLIC_BASE_URL));
    res.json(listEnvelope(items, items.length));
  });

  router.post(`${CR}/reviews`, async (req, res) => {
    const body = parseInput(reviewBody, req.body, 'body');
    const { access, changeRequest, userId } = await loadChangeRequest(ctx, req);
    if (!changeRequest.requestedReviewers.includes(userId)) requireSpaceRole(access, SPACE_ACTION_ROLES.review, 'review change requests');
    const { changeRequest: updated, review } = await submitReview(ctx, changeRequest, { userId, status: body.status });
    const users = await loadUsers(ctx, [userId]);
    const presented = presentReview(review, updated, false, users, ctx.config.PUBLIC_BASE_URL);
    res.status(201).location(presented.urls.location).json(presented);
  });

  router.post(`${CR}/requested-reviewers`, async (req, res) => {
    const body = parseInput(requestedReviewersBody, req.body, 'body');
    const { access, changeRequest, userId } = await loadChangeRequest(ctx, req);
    requireSpaceRole(access, SPACE_ACTION_ROLES.edit, 'request reviewers');
    let updated = await requestReviewers(ctx, access.space, changeRequest, body.users);
    if (body.subject !== undefined || body.description !== undefined)
      updated = await patchChangeRequest(ctx, updated, { subject: body.subject, description: body.description });
    const users = await loadUsers(ctx, [userId, ...body.users]);
    const createdAt = new Date().toISOString();
    res.json({
      users: body.users.map((user) => ({
        object: 'change-request-requested-reviewer',
        revision: updated.revisionId,
        requestedBy: users.get(userId),
        createdAt,
        kind: 'user',
        user: users.get(user),
      })),
    });
  });

  router.get(`${CR}/pdf`, async (req, res) => {
    const query = parseInput(pdfQuery, req.query, 'query');
    const { changeRequest } = await loadChangeRequest(ctx, req);
    if (query.only && !query.page) throw httpError.badRequest('Invalid query: page: required when only is true');
    if (query.page) {
      const revision = await loadRevision(ctx, changeRequest.revisionId);
      if (!revision.pages.some((page) => page.id === query.page)) throw httpError.notFound('Page');
    }
    const page = query.page ?? '';
    const only = query.only ? '1' : '0';
    const path = `/v1/public/content/pdf/${changeRequest._id}/${changeRequest.revisionId}`;
    res.json({ url: signedUrl(ctx.config, path, [page, only], { ...(page ? { page } : {}), only }) });
  });

  return router;
}

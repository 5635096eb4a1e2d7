import { clientsOf, httpError, keysetPage, type KeysetPage } from '@quire/http';
import { newId } from '@quire/runtime';
import type { QueryFilter } from 'mongoose';
import { loadOrgView, requireMember, requireOrganizationMembers, visibleSpacesFilter } from '../access';
import { changeRequestLock, spaceLock, withLock, type ContentContext, type SpaceDoc } from '../kernel';
import {
  applyChanges,
  changeRequestDescriptionJson,
  discardRevision,
  loadRevision,
  newBrokenLinks,
  writeBuiltRevision,
  type ChangeRequestDescription,
  type ChangeRequestDoc,
  type ChangeRequestStatus,
  type ContentChange,
  type ReviewDoc,
} from '../revisions';

/*
 * Change requests: numbered per space, holding their own line of immutable revisions.
 * Every write is one conditional single-document update (FerretDB has no transactions);
 * the Space counters follow each status move with $inc.
 */

const MAX_RETRIES = 20;

export const CHANGE_REQUEST_STATUSES = ['draft', 'open', 'archived', 'merged'] as const;

/** The counters a status contributes to (changeRequests counts every change request). */
export function counterDelta(from: ChangeRequestStatus | null, to: ChangeRequestStatus | null): Record<string, number> {
  const delta: Record<string, number> = {};
  const bump = (status: ChangeRequestStatus | null, by: number) => {
    if (status === 'open') delta.changeRequestsOpen = (delta.changeRequestsOpen ?? 0) + by;
    if (status === 'draft') delta.changeRequestsDraft = (delta.changeRequestsDraft ?? 0) + by;
  };
  bump(from, -1);
  bump(to, 1);
  for (const key of Object.keys(delta)) if (delta[key] === 0) delete delta[key];
  return delta;
}

/**
 * A new change request on the space's current content. With `changes` (a template, already
 * validated by the caller) its first revision is built and written BEFORE the change request
 * exists, so the change request is never seen without them: either it is created pointing at
 * that revision or nothing is left behind (the revision is discarded, the counters restored).
 */
export async function createChangeRequest(
  ctx: ContentContext,
  space: SpaceDoc,
  input: { userId: string; subject?: string; status?: 'draft' | 'open'; changes?: ContentChange[]; conversationsIssuesCluster?: string },
): Promise<ChangeRequestDoc> {
  const status = input.status ?? 'open';
  if (input.conversationsIssuesCluster) await requireCluster(ctx, space.organizationId, input.conversationsIssuesCluster);
  const changes = input.changes && input.changes.length > 0 ? input.changes : undefined;
  for (let attempt = 0; attempt < MAX_RETRIES; attempt += 1) {
    let base: string | undefined;
    let first: string | undefined;
    if (changes) {
      const fresh = await ctx.models.Space.findById(space._id).lean<SpaceDoc>();
      if (!fresh || fresh.deletedAt) throw httpError.notFound('Space');
      const revision = await loadRevision(ctx, fresh.revisionId);
      const applied = applyChanges(revision, changes);
      base = revision._id;
      first = (await writeBuiltRevision(ctx, space._id, [base], input.userId, applied))._id;
    }
    const counters = { changeRequests: 1, ...counterDelta(null, status) };
    // One atomic update hands out the number, counts the change request and reads the
    // revision it starts from (with a template: only if the space is still on `base`).
    const updated = await withLock(ctx, spaceLock(space._id), () =>
      ctx.models.Space.findOneAndUpdate(
        base === undefined ? { _id: space._id } : { _id: space._id, revisionId: base },
        { $inc: { changeRequestSeq: 1, ...counters } },
        { returnDocument: 'after' },
      ).lean<SpaceDoc>(),
    );
    if (!updated) {
      if (first === undefined) throw httpError.notFound('Space');
      // The space moved on while the first revision was built: build it again on the new content.
      await discardRevision(ctx, first);
      continue;
    }
    const now = new Date();
    const doc: ChangeRequestDoc = {
      _id: newId(),
      spaceId: space._id,
      organizationId: space.organizationId,
      number: updated.changeRequestSeq,
      status,
      subject: input.subject ?? '',
      description: null,
      createdBy: input.userId,
      createdAt: now,
      updatedAt: now,
      revisionId: first ?? updated.revisionId,
      revisionInitial: updated.revisionId,
      revisionMergedAncestor: null,
      revisionMerged: null,
      mergedBy: null,
      mergedAt: null,
      contributors: first === undefined ? [] : [input.userId],
      requestedReviewers: [],
      reviews: [],
      comments: 0,
      conversationsIssuesCluster: input.conversationsIssuesCluster ?? null,
      version: first === undefined ? 0 : 1,
    };
    try {
      await ctx.models.ChangeRequest.create(doc);
    } catch (error) {
      // Nothing may stay behind: the counters go back (the number stays used) and so does the revision.
      const undo = Object.fromEntries(Object.entries(counters).map(([key, by]) => [key, -by]));
      await withLock(ctx, spaceLock(space._id), () => ctx.models.Space.updateOne({ _id: space._id }, { $inc: undo }));
      if (first !== undefined) await discardRevision(ctx, first);
      throw error;
    }
    return doc;
  }
  throw httpError.conflict('The space changed too often concurrently; retry');
}

export interface ChangeRequestFilters {
  /** One status (space list) or several (organization list). */
  status: ChangeRequestStatus | ChangeRequestStatus[];
  creator?: string;
  contributor?: string;
  requestedReviewer?: string;
  conversationsIssuesCluster?: string;
  /** OpenAPI ChangeRequestOrderBy: newest first by updatedAt (default) or createdAt. */
  orderBy?: 'updatedAt' | 'createdAt';
}

export function listChangeRequests(
  ctx: ContentContext,
  scope: { spaceIds: string[] },
  filters: ChangeRequestFilters,
  page: { limit: number; page?: string },
): Promise<KeysetPage<ChangeRequestDoc>> {
  const statuses = Array.isArray(filters.status) ? [...new Set(filters.status)] : [filters.status];
  const filter: QueryFilter<ChangeRequestDoc> = {
    spaceId: scope.spaceIds.length === 1 ? scope.spaceIds[0] : { $in: scope.spaceIds },
    status: statuses.length === 1 ? statuses[0] : { $in: statuses },
  };
  if (filters.creator) filter.createdBy = filters.creator;
  if (filters.contributor) filter.contributors = filters.contributor;
  if (filters.requestedReviewer) filter.requestedReviewers = filters.requestedReviewer;
  if (filters.conversationsIssuesCluster) filter.conversationsIssuesCluster = filters.conversationsIssuesCluster;
  const sortField = filters.orderBy ?? 'updatedAt';
  return keysetPage(ctx.models.ChangeRequest, { filter, sortField, order: 'desc', limit: page.limit, page: page.page });
}

export interface ChangeRequestPatch {
  subject?: string;
  description?: ChangeRequestDescription | null;
  status?: ChangeRequestStatus;
  conversationsIssuesCluster?: string | null;
}

/**
 * 400 unless `clusterId` is a conversation insights cluster of the organization (insights owns
 * them): a change request never points at another organization's cluster, nor at none.
 */
async function requireCluster(ctx: ContentContext, organizationId: string, clusterId: string): Promise<void> {
  const { clusters } = await clientsOf(ctx).insights.batchGetClusters({ ids: [clusterId] });
  if (!clusters.some((cluster) => cluster.id === clusterId && cluster.organizationId === organizationId)) {
    throw httpError.badRequest('Invalid body: conversationsIssuesCluster: no such cluster in this organization');
  }
}

export async function patchChangeRequest(ctx: ContentContext, current: ChangeRequestDoc, patch: ChangeRequestPatch): Promise<ChangeRequestDoc> {
  if (patch.status === 'merged') throw httpError.badRequest('Invalid body: status: a change request becomes merged only by merging it (POST .../merge)');
  if (patch.conversationsIssuesCluster) await requireCluster(ctx, current.organizationId, patch.conversationsIssuesCluster);
  return withLock(ctx, spaceLock(current.spaceId), () =>
    withLock(ctx, changeRequestLock(current._id), async () => {
      const fresh = await ctx.models.ChangeRequest.findById(current._id).lean<ChangeRequestDoc>();
      if (!fresh) throw httpError.notFound('Change request');
      if (fresh.status === 'merged' && patch.status !== undefined) {
        throw httpError.badRequest('Invalid body: status: a merged change request cannot change status');
      }
      const set: Partial<ChangeRequestDoc> = { updatedAt: new Date() };
      if (patch.subject !== undefined) set.subject = patch.subject;
      if (patch.description !== undefined) set.description = patch.description === null ? null : changeRequestDescriptionJson.write(patch.description);
      if (patch.status !== undefined) set.status = patch.status;
      if (patch.conversationsIssuesCluster !== undefined) set.conversationsIssuesCluster = patch.conversationsIssuesCluster;
      const updated = await ctx.models.ChangeRequest.findOneAndUpdate(
        { _id: fresh._id, status: fresh.status },
        { $set: set },
        { returnDocument: 'after' },
      ).lean<ChangeRequestDoc>();
      if (!updated) throw httpError.conflict('The change request changed concurrently; retry');
      const delta = counterDelta(fresh.status, updated.status);
      if (Object.keys(delta).length > 0) await ctx.models.Space.updateOne({ _id: fresh.spaceId }, { $inc: delta });
      return updated;
    }),
  );
}

interface MergeRules {
  rules: ReadonlyArray<{ rule: string; users: string[] }>;
  noNewBrokenLinks: boolean;
}

/** The rules a merge in the space is under: the space's own, or its organization's when inherited. */
async function mergeRulesOf(ctx: ContentContext, space: SpaceDoc): Promise<MergeRules> {
  if (space.mergeRules?.type === 'rules') return { rules: space.mergeRules.rules ?? [], noNewBrokenLinks: space.mergeRules.requireNoNewBrokenLinks === true };
  if (space.mergeRules && space.mergeRules.type !== 'inherit') return { rules: [], noNewBrokenLinks: false };
  const { organizations } = await clientsOf(ctx).identity.batchGetOrganizations({ ids: [space.organizationId] });
  const organization = organizations[0];
  return organization?.mergeRulesType === 'rules'
    ? { rules: organization.mergeRules, noNewBrokenLinks: organization.mergeRulesNoNewBrokenLinks }
    : { rules: [], noNewBrokenLinks: false };
}

/** The users whose approval a merge needs, by the rules. */
const requiredReviewers = (rules: MergeRules['rules']): string[] => [
  ...new Set(rules.filter((rule) => rule.rule === 'require_specific_reviewers').flatMap((rule) => rule.users)),
];

/** How many of a change request's new broken links a refused merge names. */
const BROKEN_LINKS_NAMED = 5;

/** Each user's latest review decides their standing (a later review supersedes an earlier one). */
export function latestReviews(reviews: readonly ReviewDoc[]): Map<string, ReviewDoc> {
  const latest = new Map<string, ReviewDoc>();
  for (const review of reviews) {
    const previous = latest.get(review.userId);
    if (!previous || previous.createdAt <= review.createdAt) latest.set(review.userId, review);
  }
  return latest;
}

/**
 * 'require_specific_reviewers': every listed user (other than the author, who cannot
 * review their own change request) must have approved; otherwise a 403 naming them.
 * requireNoNewBrokenLinks: the change request's revision may have no broken internal link its
 * base did not have (the links report's classification); otherwise a 403 naming them.
 */
export async function enforceMergeRules(ctx: ContentContext, space: SpaceDoc, changeRequest: ChangeRequestDoc): Promise<void> {
  const { rules, noNewBrokenLinks } = await mergeRulesOf(ctx, space);
  const required = requiredReviewers(rules).filter((user) => user !== changeRequest.createdBy);
  const latest = latestReviews(changeRequest.reviews);
  const missing = required.filter((user) => latest.get(user)?.status !== 'approved');
  if (missing.length > 0) {
    throw httpError.forbidden(`The merge rules of this space require an approving review from: ${missing.join(', ')}`);
  }
  if (noNewBrokenLinks) {
    const base = changeRequest.revisionMergedAncestor ?? changeRequest.revisionInitial;
    const added = await newBrokenLinks(ctx, base, changeRequest.revisionId);
    if (added.length > 0) {
      const named = added.slice(0, BROKEN_LINKS_NAMED).map(({ href, pageTitle }) => `"${href}" on page "${pageTitle}"`);
      const more = added.length > BROKEN_LINKS_NAMED ? ` and ${added.length - BROKEN_LINKS_NAMED} more` : '';
      throw httpError.forbidden(`The merge rules of this space allow no new broken links; this change request adds ${named.join(', ')}${more}`);
    }
  }
}

/**
 * Records a review. The same decision on the same revision as the reviewer's latest review
 * is that review again, not a new one: a request sent twice (or eight times at once) leaves
 * one review. Decided under the change request's lock, on its current state.
 */
export async function submitReview(
  ctx: ContentContext,
  changeRequest: ChangeRequestDoc,
  input: { userId: string; status: ReviewDoc['status'] },
): Promise<{ changeRequest: ChangeRequestDoc; review: ReviewDoc }> {
  if (changeRequest.createdBy === input.userId) throw httpError.forbidden('You cannot review your own change request');
  return withLock(ctx, changeRequestLock(changeRequest._id), async () => {
    const current = await ctx.models.ChangeRequest.findById(changeRequest._id).lean<ChangeRequestDoc>();
    if (!current) throw httpError.notFound('Change request');
    if (current.status === 'merged') throw httpError.conflict('This change request is already merged');
    const latest = latestReviews(current.reviews).get(input.userId);
    if (latest && latest.status === input.status && latest.revisionId === current.revisionId) return { changeRequest: current, review: latest };
    const review: ReviewDoc = { id: newId(), userId: input.userId, status: input.status, revisionId: current.revisionId, createdAt: new Date() };
    const updated = await ctx.models.ChangeRequest.findOneAndUpdate(
      { _id: current._id },
      { $push: { reviews: review }, $set: { updatedAt: new Date() } },
      { returnDocument: 'after' },
    ).lean<ChangeRequestDoc>();
    if (!updated) throw httpError.notFound('Change request');
    return { changeRequest: updated, review };
  });
}

/** Adds requested reviewers: members of the space's organization only (400 otherwise, nothing added). */
export async function requestReviewers(ctx: ContentContext, space: SpaceDoc, changeRequest: ChangeRequestDoc, users: string[]): Promise<ChangeRequestDoc> {
  await requireOrganizationMembers(ctx, space.organizationId, users, 'users');
  const updated = await withLock(ctx, changeRequestLock(changeRequest._id), () =>
    ctx.models.ChangeRequest.findOneAndUpdate(
      { _id: changeRequest._id },
      { $addToSet: { requestedReviewers: { $each: users } }, $set: { updatedAt: new Date() } },
      { returnDocument: 'after' },
    ).lean<ChangeRequestDoc>(),
  );
  if (!updated) throw httpError.notFound('Change request');
  return updated;
}

/**
 * Spec field `outdated`: true exactly when main moved on since the change request's base
 * (revisionMergedAncestor, else revisionInitial). A merged change request is part of main:
 * its own merge (and anything after it) does not make it outdated, there is nothing left to
 * update it with.
 */
export function isOutdated(changeRequest: ChangeRequestDoc, spaceRevisionId: string): boolean {
  if (changeRequest.status === 'merged') return false;
  return spaceRevisionId !== (changeRequest.revisionMergedAncestor ?? changeRequest.revisionInitial);
}

/** The revision a change request's space is at now ('' when the space is gone): what `outdated` compares with. */
export async function spaceRevisionOf(ctx: ContentContext, spaceId: string): Promise<string> {
  return (await ctx.models.Space.findById(spaceId, { revisionId: 1 }).lean<SpaceDoc>())?.revisionId ?? '';
}

/**
 * A page of the change requests of the spaces a member sees in their organization (optionally
 * one of them), with the revision each of those spaces is at. By space, not by the organization
 * recorded at creation: spaces can be transferred. 404 for non-members.
 */
export async function listOrganizationChangeRequests(
  ctx: ContentContext,
  userId: string,
  organizationId: string,
  query: Parameters<typeof listChangeRequests>[2] & Parameters<typeof listChangeRequests>[3] & { space?: string },
): Promise<{ page: KeysetPage<ChangeRequestDoc>; spaceRevisions: Map<string, string> }> {
  const visibleSpaces = visibleSpacesFilter(await loadOrgView(ctx, await requireMember(ctx, organizationId, userId)));
  const filter = query.space === undefined ? visibleSpaces : { $and: [visibleSpaces, { _id: query.space }] };
  const spaces = await ctx.models.Space.find(filter, { _id: 1, revisionId: 1 }).lean<SpaceDoc[]>();
  const page = await listChangeRequests(ctx, { spaceIds: spaces.map((space) => space._id) }, query, query);
  return { page, spaceRevisions: new Map(spaces.map((space) => [space._id, space.revisionId])) };
}

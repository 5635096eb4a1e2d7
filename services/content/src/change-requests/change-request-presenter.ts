import { apiUrl } from '@quire/http';
import type { BackendConfig } from '@quire/runtime';
import type { PresentedUser } from '../kernel';
import { changeRequestDescriptionJson, presentFile, type ChangeRequestDoc, type ChangeResult, type ReviewDoc, type RevisionFileDoc } from '../revisions';
import { isOutdated } from './change-requests';

/**
 * A stored description as the spec's rich-text document, `{object, data: {schemaVersion, …}, nodes}`:
 * descriptions written before the request schema defaulted the version are answered with it too.
 */
function presentDescription(stored: string) {
  const { object, data, nodes } = changeRequestDescriptionJson.read(stored);
  return { object, data: { schemaVersion: 1, ...data }, nodes };
}

/** The ChangeRequest object (spec "ChangeRequest", OpenAPI ChangeRequest). */
export function presentChangeRequest(
  changeRequest: ChangeRequestDoc,
  { spaceRevisionId, users, baseUrl }: { spaceRevisionId: string; users: Map<string, PresentedUser>; baseUrl: string },
) {
  const cr = changeRequest;
  return {
    object: 'change-request' as const,
    id: cr._id,
    number: cr.number,
    status: cr.status,
    subject: cr.subject,
    ...(cr.description ? { description: presentDescription(cr.description) } : {}),
    createdBy: users.get(cr.createdBy),
    createdAt: new Date(cr.createdAt).toISOString(),
    updatedAt: new Date(cr.updatedAt).toISOString(),
    ...(cr.mergedBy ? { mergedBy: users.get(cr.mergedBy) } : {}),
    ...(cr.mergedAt ? { mergedAt: new Date(cr.mergedAt).toISOString() } : {}),
    space: cr.spaceId,
    revision: cr.revisionId,
    revisionInitial: cr.revisionInitial,
    ...(cr.revisionMergedAncestor ? { revisionMergedAncestor: cr.revisionMergedAncestor } : {}),
    ...(cr.revisionMerged ? { revisionMerged: cr.revisionMerged } : {}),
    comments: cr.comments ?? 0,
    outdated: isOutdated(cr, spaceRevisionId),
    ...(cr.conversationsIssuesCluster ? { conversationsIssuesCluster: cr.conversationsIssuesCluster } : {}),
    urls: {
      app: apiUrl(baseUrl, `/s/${cr.spaceId}/~/changes/${cr.number}`),
      location: apiUrl(baseUrl, `/v1/spaces/${cr.spaceId}/change-requests/${cr._id}`),
    },
  };
}

/** Every user a list of change requests shows (authors, mergers): what to load before presenting it. */
export function userIdsOf(changeRequests: ChangeRequestDoc[]): string[] {
  return changeRequests.flatMap((cr) => [cr.createdBy, ...(cr.mergedBy ? [cr.mergedBy] : [])]);
}

/** The ChangeRequestReview object (OpenAPI ChangeRequestReview); `outdated` when the reviewer reviewed again since. */
export function presentReview(
  review: ReviewDoc,
  { changeRequest, outdated, users, baseUrl }: { changeRequest: ChangeRequestDoc; outdated: boolean; users: Map<string, PresentedUser>; baseUrl: string },
) {
  return {
    object: 'change-request-review' as const,
    id: review.id,
    revision: review.revisionId,
    reviewer: users.get(review.userId),
    status: review.status,
    outdated,
    createdAt: new Date(review.createdAt).toISOString(),
    updatedAt: new Date(review.createdAt).toISOString(),
    urls: { location: apiUrl(baseUrl, `/v1/spaces/${changeRequest.spaceId}/change-requests/${changeRequest._id}/reviews/${review.id}`) },
  };
}

type ChangeRequestObject = ReturnType<typeof presentChangeRequest>;
type PageOutcome = { object: 'created_page'; ref?: string; page: string } | { object: 'updated_page'; page: string } | { object: 'deleted_page'; page: string };

/**
 * OpenAPI ChangeRequestContentUpdate (POST .../content with compat=false): one entry per
 * affected page in the order first touched, deduplicated to the net outcome (inserted then
 * updated is created; updated then deleted is deleted; inserted then deleted is nothing),
 * and the files the batch inserted.
 */
export function presentContentUpdate(
  changeRequest: ChangeRequestObject,
  {
    results,
    files,
    config,
  }: {
    results: readonly ChangeResult[];
    files: readonly RevisionFileDoc[];
    config: Pick<BackendConfig, 'PUBLIC_BASE_URL' | 'FILES_BASE_URL' | 'INTERNAL_HMAC_SECRET'>;
  },
) {
  const outcomes = new Map<string, PageOutcome>();
  const touch = (page: string, outcome: PageOutcome) => {
    const previous = outcomes.get(page);
    if (previous?.object === 'created_page' && outcome.object === 'deleted_page') outcomes.delete(page);
    else if (previous?.object !== 'created_page' || outcome.object !== 'updated_page') outcomes.set(page, outcome);
  };
  const inserted: string[] = [];
  for (const result of results) {
    if (result.type === 'insert_page')
      touch(
        result.page,
        result.ref === undefined ? { object: 'created_page', page: result.page } : { object: 'created_page', ref: result.ref, page: result.page },
      );
    else if (result.type === 'update_page') touch(result.page, { object: 'updated_page', page: result.page });
    else if (result.type === 'delete_page') for (const page of result.pages) touch(page, { object: 'deleted_page', page });
    else inserted.push(...result.files.map((file) => file.id));
  }
  const pageRef = (id: string) => ({ object: 'page' as const, id, urls: { location: `${changeRequest.urls.location}/content/page/${id}` } });
  const byId = new Map(files.map((file) => [file.id, file]));
  return {
    changeRequest,
    changes: [...outcomes.values()].map((outcome) => (outcome.object === 'deleted_page' ? outcome : { ...outcome, page: pageRef(outcome.page) })),
    insertedFiles: inserted.flatMap((id) => {
      const file = byId.get(id);
      return file ? [presentFile(file, { revisionId: changeRequest.revision, config })] : [];
    }),
  };
}

/** The requested reviewers just added (OpenAPI ChangeRequestRequestedReviewers), on the change request's current revision. */
export function presentRequestedReviewers(
  reviewers: readonly string[],
  {
    changeRequest,
    requestedBy,
    requestedAt,
    users,
  }: { changeRequest: ChangeRequestDoc; requestedBy: string; requestedAt: Date; users: Map<string, PresentedUser> },
) {
  const createdAt = requestedAt.toISOString();
  return {
    users: reviewers.map((user) => ({
      object: 'change-request-requested-reviewer',
      revision: changeRequest.revisionId,
      requestedBy: users.get(requestedBy),
      createdAt,
      kind: 'user',
      user: users.get(user),
    })),
  };
}

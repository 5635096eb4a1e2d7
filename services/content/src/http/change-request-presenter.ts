import { apiUrl, presentUser } from '@quire/http';
import type { ChangeRequestDoc, ReviewDoc } from '../db/revisions';
import type { ContentContext } from '../domain/context';
import { isOutdated } from '../domain/change-requests';

export type PresentedUser = ReturnType<typeof presentUser>;

/** Users by id with ONE identity.BatchGetUsers call (unknown users get a placeholder). */
export async function loadUsers(ctx: ContentContext, ids: Iterable<string>): Promise<Map<string, PresentedUser>> {
  const wanted = [...new Set([...ids].filter(Boolean))];
  const users = new Map<string, PresentedUser>();
  if (wanted.length > 0) {
    const { users: found } = await ctx.clients.identity.batchGetUsers({ ids: wanted });
    for (const user of found) users.set(user.id, presentUser({ id: user.id, displayName: user.displayName, email: user.email, photoURL: user.photoUrl || undefined }, ctx.config.PUBLIC_BASE_URL));
  }
  for (const id of wanted) if (!users.has(id)) users.set(id, presentUser({ id, displayName: 'Unknown user', email: '' }, ctx.config.PUBLIC_BASE_URL));
  return users;
}

/** The ChangeRequest object (spec "ChangeRequest", OpenAPI ChangeRequest). */
export function presentChangeRequest(changeRequest: ChangeRequestDoc, spaceRevisionId: string, users: Map<string, PresentedUser>, baseUrl: string) {
  const cr = changeRequest;
  return {
    object: 'change-request' as const,
    id: cr._id,
    number: cr.number,
    status: cr.status,
    subject: cr.subject,
    ...(cr.description ? { description: JSON.parse(cr.description) } : {}),
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

export function userIdsOf(changeRequests: ChangeRequestDoc[]): string[] {
  return changeRequests.flatMap((cr) => [cr.createdBy, ...(cr.mergedBy ? [cr.mergedBy] : [])]);
}

/** The ChangeRequestReview object (OpenAPI ChangeRequestReview). */
export function presentReview(review: ReviewDoc, changeRequest: ChangeRequestDoc, outdated: boolean, users: Map<string, PresentedUser>, baseUrl: string) {
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

/**
 * The domain events services tell each other on the stream (payloads below).
 * Producers and consumers import these names instead of spelling strings.
 */
export const EVENT_TYPES = {
  /** identity → `{ organizationId, userId }`: the membership and its team memberships are gone. */
  memberRemoved: 'organization.member_removed',
  /** identity → `{ organizationId, teamId }`. */
  teamDeleted: 'team.deleted',
  /** content → `{ organizationId, spaceId }`: soft-deleted (restorable for 7 days). */
  spaceDeleted: 'space.deleted',
  /** content → `{ organizationId, spaceId }`. */
  spaceRestored: 'space.restored',
  /** content → `{ organizationId, spaceId }`: gone for good. */
  spacePurged: 'space.purged',
  /** content → `{ spaceId, fromOrganizationId, toOrganizationId }`. */
  spaceTransferred: 'space.transferred',
  /** content → `{ organizationId, spaceId, revisionId }`: the space's primary content changed. */
  spaceContentUpdated: 'space.content_updated',
  /** content → `{ organizationId, spaceId, changeRequestId, revisionId }`. */
  changeRequestMerged: 'change_request.merged',
  /** content → `{ organizationId, spaceId, previousVisibility, visibility }`. */
  spaceVisibilityUpdated: 'space.visibility_updated',
  /** content → `{ organizationId, spaceId, operationId, direction, revisionId, commitId }`: a Git import or export began. */
  gitSyncStarted: 'space.gitsync_started',
  /**
   * content → `{ organizationId, spaceId, operationId, direction, state: 'success' | 'failure',
   * revisionId, commitId }`: it ended (a timeout is a failure).
   */
  gitSyncCompleted: 'space.gitsync_completed',
  /**
   * publishing → `{ organizationId, siteId, siteSpaceId, spaceId, pageId, url, referrer?,
   * visitor: { anonymousId, userAgent, ip, language?, cookies: {}, claims } }`: a visitor
   * opened a page of a published site (a page view, the 304s of a revisit included).
   */
  siteViewed: 'site.viewed',
} as const;

export type EventType = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];

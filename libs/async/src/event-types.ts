import { z } from 'zod';
import { defineEvent } from './events';

const id = z.string().min(1);

/** Most page views one site.views event carries. */
export const SITE_VIEWS_PER_EVENT = 100;

const spaceOf = z.object({ organizationId: id, spaceId: id });

/** A visitor of a published site, as views and page feedback tell of them (GitBook's EventVisitor; `cookies` always empty). */
const visitor = z.object({
  anonymousId: z.string(),
  userAgent: z.string(),
  ip: z.string(),
  language: z.string().optional(),
  cookies: z.record(z.string(), z.string()),
});

/** A Git import or export of a space; its revision and commit are empty when there is none yet. */
const gitSync = spaceOf.extend({ operationId: id, direction: z.enum(['import', 'export']), revisionId: z.string(), commitId: z.string() });

/**
 * The domain events services tell each other on the stream, each declared once here with the
 * schema of its payload: producers publish them and consumers subscribe to them by these
 * definitions (EventBus), never by spelling a type.
 */
export const EVENTS = {
  /** identity: the membership and its team memberships are gone. */
  memberRemoved: defineEvent('organization.member_removed', z.object({ organizationId: id, userId: id })),
  /** identity. */
  teamDeleted: defineEvent('team.deleted', z.object({ organizationId: id, teamId: id })),
  /** content: soft-deleted (restorable for 7 days). */
  spaceDeleted: defineEvent('space.deleted', spaceOf),
  /** content. */
  spaceRestored: defineEvent('space.restored', spaceOf),
  /** content: gone for good. */
  spacePurged: defineEvent('space.purged', spaceOf),
  /** content. */
  spaceTransferred: defineEvent('space.transferred', z.object({ spaceId: id, fromOrganizationId: id, toOrganizationId: id })),
  /** content: the space's primary content changed. */
  spaceContentUpdated: defineEvent('space.content_updated', spaceOf.extend({ revisionId: id })),
  /** content. */
  changeRequestMerged: defineEvent('change_request.merged', spaceOf.extend({ changeRequestId: id, revisionId: id })),
  /** content. */
  spaceVisibilityUpdated: defineEvent('space.visibility_updated', spaceOf.extend({ previousVisibility: id, visibility: id })),
  /** content: a Git import or export began. */
  gitSyncStarted: defineEvent('space.gitsync_started', gitSync),
  /** content: it ended (a timeout is a failure). */
  gitSyncCompleted: defineEvent('space.gitsync_completed', gitSync.extend({ state: z.enum(['success', 'failure']) })),
  /**
   * publishing: what one of its sites shows changed (the site, its sections, groups, site spaces,
   * share links, redirects; its spaces going to the trash and back). Publishing itself records
   * the addresses the site publishes from it.
   */
  siteChanged: defineEvent('site.changed', z.object({ siteId: id })),
  /**
   * publishing: visitors opened pages of one published site (page views, the 304s of revisits
   * included), a few at a time: each view is one entry of `views`, in the order they were read.
   * The visitors' cookies are never put on the stream (always empty: a site's cookies hold its
   * share key and the visitor's token). On a stream of their own (`site-views`): the busiest
   * events by far, read only by the groups that take them, not by every consumer of `events`.
   */
  siteViewed: defineEvent(
    'site.views',
    z.object({
      organizationId: id,
      siteId: id,
      views: z
        .array(
          z.object({
            siteSpaceId: id,
            spaceId: id,
            pageId: id,
            url: z.string(),
            referrer: z.string().optional(),
            visitor,
          }),
        )
        .min(1)
        .max(SITE_VIEWS_PER_EVENT),
    }),
    { stream: 'site-views' },
  ),
  /**
   * publishing: a visitor rated a page of a published site (GitBook's page feedback). On the
   * stream of views (`site-views`): what visitors do on sites, read only by integrations. Like a
   * view's, the visitor's cookies are never put on the stream.
   */
  pageFeedback: defineEvent(
    'page.feedback',
    z.object({
      organizationId: id,
      siteId: id,
      siteSpaceId: id,
      spaceId: id,
      pageId: id,
      rating: z.enum(['bad', 'ok', 'good']),
      url: z.string(),
      referrer: z.string().optional(),
      visitor,
    }),
    { stream: 'site-views' },
  ),
} as const;

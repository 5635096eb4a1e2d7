import { z } from 'zod';
import { document, timestamp, url, urls } from './common';
import { revisionFile } from './revisions';
import { user } from './users';

/*
 * Change requests and what their operations answer (spec "ChangeRequest", "Change requests";
 * GitBook's ChangeRequestReview, ChangeRequestRequestedReviewer and ChangeRequestContentUpdate
 * for the operations the spec does not show).
 */

/** spec "ChangeRequest" `status` (the full list is GitBook's ChangeRequestStatus). */
export const changeRequestStatus = z.enum(['draft', 'open', 'archived', 'merged']).meta({ id: 'ChangeRequestStatus' });

/** spec "ChangeRequest"; `mergedBy` and `mergedAt` (GitBook) once merged. */
export const changeRequest = z
  .object({
    object: z.literal('change-request'),
    id: z.string(),
    number: z.number().int().min(1),
    status: changeRequestStatus,
    subject: z.string().max(100),
    description: document.optional(),
    createdBy: user,
    createdAt: timestamp,
    updatedAt: timestamp,
    mergedBy: user.optional(),
    mergedAt: timestamp.optional(),
    space: z.string(),
    revision: z.string(),
    revisionInitial: z.string(),
    revisionMergedAncestor: z.string().optional(),
    revisionMerged: z.string().optional(),
    comments: z.number().int().min(0),
    outdated: z.boolean(),
    conversationsIssuesCluster: z.string().optional(),
    urls: urls(['app', 'location']),
  })
  .meta({ id: 'ChangeRequest' });

/** POST …/merge (spec "States and transitions"): the space's new revision. */
export const changeRequestMerged = z.object({ revision: z.string(), result: z.literal('merge') }).meta({ id: 'ChangeRequestMergeResult' });

/** POST …/update: the change request's new revision, with the space's content pulled in. */
export const changeRequestUpdated = z.object({ revision: z.string(), result: z.literal('update') }).meta({ id: 'ChangeRequestUpdateResult' });

/** GET …/pdf: a signed, expiring address of the PDF. */
export const changeRequestPdf = z.object({ url }).meta({ id: 'ChangeRequestPDF' });

/** GitBook ChangeRequestReview: an approval or a request for changes, on one revision of the change request. */
export const changeRequestReview = z
  .object({
    object: z.literal('change-request-review'),
    id: z.string(),
    revision: z.string(),
    reviewer: user,
    status: z.enum(['approved', 'changes-requested']),
    outdated: z.boolean(),
    createdAt: timestamp,
    updatedAt: timestamp,
    urls: urls(['location']),
  })
  .meta({ id: 'ChangeRequestReview' });

/** GitBook ChangeRequestRequestedReviewer (users only: Quire does not request reviews of teams). */
export const changeRequestRequestedReviewer = z
  .object({
    object: z.literal('change-request-requested-reviewer'),
    revision: z.string(),
    requestedBy: user,
    createdAt: timestamp,
    kind: z.literal('user'),
    user,
  })
  .meta({ id: 'ChangeRequestRequestedReviewer' });

/** POST …/requested-reviewers: the requests just made. */
export const changeRequestRequestedReviewers = z.object({ users: z.array(changeRequestRequestedReviewer) }).meta({ id: 'ChangeRequestRequestedReviewers' });

/** A page a content batch created or updated, with the address of its content (GitBook ChangeRequestContentUpdatePageRef). */
const pageRef = z.object({ object: z.literal('page'), id: z.string(), urls: urls(['location']) }).meta({ id: 'ChangeRequestContentUpdatePageRef' });

/** GitBook ChangeRequestContentUpdate (POST …/content with compat=false): the change request, each page's net outcome, the inserted files. */
export const changeRequestContentUpdate = z
  .object({
    changeRequest,
    changes: z.array(
      z.discriminatedUnion('object', [
        z.object({ object: z.literal('created_page'), ref: z.string().optional(), page: pageRef }),
        z.object({ object: z.literal('updated_page'), page: pageRef }),
        z.object({ object: z.literal('deleted_page'), page: z.string() }),
      ]),
    ),
    insertedFiles: z.array(revisionFile),
  })
  .meta({ id: 'ChangeRequestContentUpdate' });

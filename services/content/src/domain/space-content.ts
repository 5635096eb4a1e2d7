import type { ContentContext } from './context';

/*
 * What the spaces code needs from the revisions code (contract between the two halves of
 * this service): the content a space starts with, copies of it, and its removal.
 */

/** Creates the empty first revision of a new space and returns its id. */
export async function createInitialRevision(_ctx: ContentContext, _input: { spaceId: string; organizationId: string; createdBy: string }): Promise<string> {
  throw new Error('createInitialRevision: implemented with the revisions work');
}

/** Copies `revisionId`'s content into a new revision owned by `toSpaceId` (for duplicate); returns its id. */
export async function copyRevisionToSpace(_ctx: ContentContext, _input: { revisionId: string; toSpaceId: string; createdBy: string }): Promise<string> {
  throw new Error('copyRevisionToSpace: implemented with the revisions work');
}

/** Removes everything a purged space owned (revisions, change requests, files); idempotent. */
export async function purgeSpaceContent(_ctx: ContentContext, _spaceId: string): Promise<void> {
  throw new Error('purgeSpaceContent: implemented with the revisions work');
}

import { clientsOf, ServiceError } from '@quire/http';
import type { content } from '@quire/proto';
import { grpcStatus } from '@quire/runtime';
import type { InsightsContext } from '../kernel';

/*
 * What translations ask of the content service (insights never reads content's database):
 * spaces as a viewer sees them (BatchGetSpaces), a space's pages (GetSpaceContent), the target
 * space (CreateSpace, idempotent by key) and its new page tree (WriteSpacePages, compare-and-set
 * on the revision). The last three run in the worker: their failures (ServiceError) are told
 * by the run as its reason, not turned into HTTP answers.
 */

/** Long enough for a whole space's content (the default deadline is for small calls). */
const CONTENT_DEADLINE_MS = 60_000;

/** A space as content tells it to a viewer. */
export interface SpaceView {
  id: string;
  organizationId: string;
  title: string;
  emoji: string;
  parentId: string;
  /** The viewer's role on it ('' when they have none). */
  viewerRole: string;
  /** Its `language` as the REST API presents it (undefined when not set). */
  language?: string;
}

/** Live spaces among `ids` (deleted, purged and unknown ones are absent), with `viewerUserId`'s role on each. */
export async function lookUpSpaces(ctx: InsightsContext, ids: readonly string[], viewerUserId: string): Promise<Map<string, SpaceView>> {
  const { spaces } = await clientsOf(ctx).content.batchGetSpaces({ ids: [...new Set(ids)], includeDeleted: false, viewerUserId });
  const found = new Map<string, SpaceView>();
  for (const space of spaces) {
    if (space.deleteTime) continue;
    found.set(space.id, {
      id: space.id,
      organizationId: space.organizationId,
      title: space.title,
      emoji: space.emoji,
      parentId: space.parentId,
      viewerRole: space.viewerRole,
      language: space.rest?.language,
    });
  }
  return found;
}

const isStatus = (error: unknown, code: number) => error instanceof ServiceError && error.code === code;

/** A space's pages at its current revision (pre-order, with bodies); null when the space is gone (deleted or purged). */
export async function readSpaceContent(ctx: InsightsContext, spaceId: string): Promise<content.GetSpaceContentResponse | null> {
  try {
    return await clientsOf(ctx).content.getSpaceContent({ spaceId, revisionId: '' }, { deadline: CONTENT_DEADLINE_MS });
  } catch (error) {
    if (isStatus(error, grpcStatus.NOT_FOUND)) return null;
    throw error;
  }
}

/** Creates the target space once per key (asked again, it answers the space made the first time). */
export async function createTargetSpace(ctx: InsightsContext, request: content.CreateSpaceRequest): Promise<string> {
  const answer = await clientsOf(ctx).content.createSpace(request, { deadline: CONTENT_DEADLINE_MS });
  if (!answer.space) throw new Error('CreateSpace answered no space');
  return answer.space.id;
}

/** Writes the page tree if the space is still at `expectedRevisionId`: its new revision, or 'moved' when it is not (read it again). */
export async function writeSpacePages(ctx: InsightsContext, request: content.WriteSpacePagesRequest): Promise<{ revisionId: string } | 'moved'> {
  try {
    const answer = await clientsOf(ctx).content.writeSpacePages(request, { deadline: CONTENT_DEADLINE_MS });
    return { revisionId: answer.revisionId };
  } catch (error) {
    if (isStatus(error, grpcStatus.ABORTED)) return 'moved';
    throw error;
  }
}

import { clientsOf, httpError } from '@quire/http';
import type { ContentContext, SpaceDoc } from '../kernel';

/**
 * The space's published address on the site whose share link `shareKey` opens (publishing
 * knows sites and links); undefined while that site is unpublished. A key that opens no
 * active link of a site showing this space is a 400, as on publishing's own routes.
 */
export async function resolvePublishedUrl(ctx: ContentContext, space: SpaceDoc, shareKey: string): Promise<string | undefined> {
  const answer = await clientsOf(ctx).publishing.resolveShareKey({ spaceId: space._id, shareKey, organizationId: space.organizationId });
  if (!answer.resolved) throw httpError.badRequest('Invalid query: shareKey: no active share link of a site that shows this space');
  return answer.publishedUrl || undefined;
}

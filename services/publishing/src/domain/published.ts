import type { SiteDoc } from '../db/models';
import type { OrgAccess } from './access';
import type { PublishingContext } from './context';
import { lookUpSpaces } from './spaces';
import { loadStructure } from './structure';
import { structureView, type StructureView } from './structure-view';

/**
 * The site's structure with its spaces as the caller sees them, fetched in one
 * BatchGetSpaces for the whole response: what they may not open is never presented.
 */
export async function loadView(ctx: PublishingContext, access: OrgAccess, site: SiteDoc, shareKey?: string): Promise<StructureView> {
  const structure = await loadStructure(ctx, site);
  const spaces = await lookUpSpaces(
    ctx,
    site.organizationId,
    structure.siteSpaces.map((s) => s.spaceId),
    access.userId,
  );
  return structureView(structure, spaces, ctx.config, shareKey);
}

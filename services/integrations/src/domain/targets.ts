import { clientsOf, type SiteObject, type SpaceObject } from '@quire/http';
import type { IntegrationsContext } from './context';

/*
 * The spaces and sites installations point at belong to content and publishing: asked over
 * gRPC, one batch call per page of entries (never one call per entry).
 */

/** A space or a site as its service tells it: its organization, and its REST object for the viewer. */
export interface TargetObject {
  id: string;
  organizationId: string;
  /** The Space or Site object as the viewer sees it (permissions false when they hold no role). */
  rest?: SpaceObject | SiteObject;
}

/** The live spaces among `ids` (trashed, purged and unknown ones are absent), presented to `viewerUserId` when given. */
async function lookUpSpaces(ctx: IntegrationsContext, ids: string[], viewerUserId?: string): Promise<Map<string, TargetObject>> {
  const { spaces } = await clientsOf(ctx).content.batchGetSpaces({ ids: [...new Set(ids)], includeDeleted: false, viewerUserId: viewerUserId ?? '' });
  const found = new Map<string, TargetObject>();
  for (const space of spaces) {
    if (space.deleteTime) continue;
    found.set(space.id, { id: space.id, organizationId: space.organizationId, rest: viewerUserId ? space.rest : undefined });
  }
  return found;
}

/** The sites among `ids` (unknown ones are absent), presented to `viewerUserId` when given. */
async function lookUpSites(ctx: IntegrationsContext, ids: string[], viewerUserId?: string): Promise<Map<string, TargetObject>> {
  const { sites } = await clientsOf(ctx).publishing.batchGetSites({ ids: [...new Set(ids)], viewerUserId: viewerUserId ?? '' });
  return new Map(sites.map((site) => [site.id, { id: site.id, organizationId: site.organizationId, rest: viewerUserId ? site.rest : undefined }]));
}

/** Looks up targets of one kind. */
export const lookUpTargets = (ctx: IntegrationsContext, kind: 'space' | 'site', ids: string[], viewerUserId?: string) =>
  kind === 'space' ? lookUpSpaces(ctx, ids, viewerUserId) : lookUpSites(ctx, ids, viewerUserId);

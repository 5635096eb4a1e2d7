import { fromService } from '@quire/http';
import { MAX_GRPC_BATCH } from '@quire/runtime';
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
  rest?: Record<string, unknown>;
}

/** The live spaces among `ids` (trashed, purged and unknown ones are absent), presented to `viewerUserId` when given. */
async function lookUpSpaces(ctx: IntegrationsContext, ids: string[], viewerUserId?: string): Promise<Map<string, TargetObject>> {
  const unique = [...new Set(ids)];
  const found = new Map<string, TargetObject>();
  for (let start = 0; start < unique.length; start += MAX_GRPC_BATCH) {
    const { spaces } = await fromService(
      'Content',
      ctx.clients.content.batchGetSpaces({ ids: unique.slice(start, start + MAX_GRPC_BATCH), includeDeleted: false, viewerUserId: viewerUserId ?? '' }),
    );
    for (const space of spaces) {
      if (space.deleteTime) continue;
      found.set(space.id, {
        id: space.id,
        organizationId: space.organizationId,
        rest: viewerUserId && space.restJson ? (JSON.parse(space.restJson) as Record<string, unknown>) : undefined,
      });
    }
  }
  return found;
}

/** The sites among `ids` (unknown ones are absent), presented to `viewerUserId` when given. */
async function lookUpSites(ctx: IntegrationsContext, ids: string[], viewerUserId?: string): Promise<Map<string, TargetObject>> {
  const unique = [...new Set(ids)];
  const found = new Map<string, TargetObject>();
  for (let start = 0; start < unique.length; start += MAX_GRPC_BATCH) {
    const { sites } = await fromService(
      'Publishing',
      ctx.clients.publishing.batchGetSites({ ids: unique.slice(start, start + MAX_GRPC_BATCH), viewerUserId: viewerUserId ?? '' }),
    );
    for (const site of sites) {
      found.set(site.id, {
        id: site.id,
        organizationId: site.organizationId,
        rest: viewerUserId && site.restJson ? (JSON.parse(site.restJson) as Record<string, unknown>) : undefined,
      });
    }
  }
  return found;
}

/** Looks up targets of one kind. */
export const lookUpTargets = (ctx: IntegrationsContext, kind: 'space' | 'site', ids: string[], viewerUserId?: string) =>
  kind === 'space' ? lookUpSpaces(ctx, ids, viewerUserId) : lookUpSites(ctx, ids, viewerUserId);

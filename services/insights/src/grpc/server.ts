import type { insights } from '@quire/proto';
import { batchGetClusters } from '../conversations';
import type { InsightsContext } from '../kernel';

/** InsightsService over gRPC: clusters for content to link change requests to. */
export function insightsGrpc(ctx: InsightsContext): insights.InsightsServiceImplementation {
  return {
    batchGetClusters: (request) => batchGetClusters(ctx, request),
  };
}

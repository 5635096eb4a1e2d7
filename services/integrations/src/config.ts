import { z } from 'zod';
import { backendConfigSchema, envBoolean } from '@quire/runtime';

/** The integrations service's settings: the backend ones plus secrets at rest, egress and the script runtime's limits. */
export const integrationsConfigSchema = backendConfigSchema.extend({
  /** Key (at least 32 characters) the integrations' secrets and signing secrets are encrypted with at rest. */
  INTEGRATIONS_SECRETS_KEY: z.string().min(32, 'must be at least 32 characters'),
  /** Let scripts' fetch and dev tunnels reach loopback and private networks (development and tests only). */
  INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: envBoolean.default(false),
  /** Memory one script run may use. */
  SCRIPT_MEMORY_LIMIT_MB: z.coerce.number().int().min(8).max(1024).default(64),
  /** CPU time one script run may take. */
  SCRIPT_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(5_000),
  /** Worker threads running scripts in each process: the main thread never runs guest code. */
  SCRIPT_WORKERS: z.coerce.number().int().min(1).max(64).default(2),
  /** V8 heap of each script worker (the script's own heap is SCRIPT_MEMORY_LIMIT_MB, apart): past it the worker is replaced. */
  SCRIPT_WORKER_HEAP_MB: z.coerce.number().int().min(32).max(4096).default(128),
  /** Runs waiting for a free worker in each process; past it a run is refused as busy (503, or a delivery retried later). */
  SCRIPT_QUEUE_MAX: z.coerce.number().int().min(0).max(10_000).default(64),
  /** Script runs of one integration at once, across all processes. */
  SCRIPT_CONCURRENCY_PER_INTEGRATION: z.coerce.number().int().min(1).max(1000).default(4),
  /** Script runs for one organization at once (its deliveries, and its integrations' public endpoints), across all processes. */
  SCRIPT_CONCURRENCY_PER_ORGANIZATION: z.coerce.number().int().min(1).max(1000).default(8),
  /**
   * Script CPU time (ms) the public endpoints of one organization's integrations may use per
   * minute, across all processes; once spent, calls answer 429 with Retry-After until the minute
   * is over (an endless loop costs SCRIPT_TIMEOUT_MS each).
   */
  ENDPOINT_SCRIPT_CPU_MS_PER_MINUTE: z.coerce.number().int().min(100).max(10_000_000).default(10_000),
  /** Calls to one integration's public endpoint per minute, across all processes; past it 429 with Retry-After. */
  INTEGRATION_ENDPOINT_RATE_PER_MINUTE: z.coerce.number().int().min(1).max(1_000_000).default(300),
  /** Event deliveries each process runs at once (mostly waiting: on the script's worker, a tunnel, the datastore). */
  DELIVERY_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
  /** Event deliveries of one organization running at once, across all processes; its others wait their turn behind other organizations'. */
  DELIVERY_ACTIVE_PER_ORGANIZATION: z.coerce.number().int().min(1).max(1000).default(4),
  /** How often each process queues again the pending event deliveries whose job is gone (those pending for over twice this long). */
  DELIVERY_SWEEP_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(30_000),
  /** Largest icon or preview image a publish may carry, decoded. */
  INTEGRATION_IMAGE_MAX_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /** Largest script a publish may carry. */
  INTEGRATION_SCRIPT_MAX_BYTES: z.coerce.number().int().min(1024).default(5_242_880),
});
export type IntegrationsConfig = z.infer<typeof integrationsConfigSchema>;

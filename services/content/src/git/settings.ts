import { z } from 'zod';
import { envBoolean } from '@quire/runtime';
import type { ContentContext } from '../kernel';

/**
 * Git import/export settings, merged into the service's config by config.ts. Protocols
 * are git's transport names: https only by default, because `file` reads the server's
 * own disk and `http` sends credentials in clear. Repository hosts must be public
 * addresses unless private networks are allowed (a self-hosted Git server on the
 * internal network; tests).
 */
export const gitConfigSchema = z.object({
  // Parsed again from an already loaded config (gitSettings below): accepts the list too.
  GIT_ALLOWED_PROTOCOLS: z.preprocess(
    (value) =>
      typeof value === 'string'
        ? value
            .split(',')
            .map((protocol) => protocol.trim().toLowerCase())
            .filter(Boolean)
        : (value ?? ['https']),
    z.array(z.enum(['https', 'http', 'file'])).min(1),
  ),
  /** Let repository hosts resolve to loopback, private, link-local, CGNAT or unique-local addresses (never cloud metadata). */
  GIT_ALLOW_PRIVATE_NETWORKS: envBoolean,
  /** A job still running after this long is stopped and recorded as `timeout`. */
  GIT_OPERATION_TIMEOUT_MS: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 60 * 1000),
  /** Repository bounds: files in the fetched tree and bytes fetched / read. */
  GIT_MAX_FILES: z.coerce.number().int().positive().default(20_000),
  GIT_MAX_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(256 * 1024 * 1024),
  /** Author and committer of the commits an export makes. */
  GIT_COMMITTER_NAME: z.string().min(1).default('Quire'),
  GIT_COMMITTER_EMAIL: z.string().email().default('git-sync@quire.invalid'),
  /** Git jobs one process runs at once (jobs of one space always run one after the other). */
  GIT_WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(32).default(2),
  /** Git jobs of one organization running at once, across all processes; its others wait their turn behind other organizations'. */
  GIT_JOBS_ACTIVE_PER_ORGANIZATION: z.coerce.number().int().min(1).max(32).default(1),
});
export type GitConfig = z.infer<typeof gitConfigSchema>;

const settings = new WeakMap<ContentContext, GitConfig>();

/**
 * The git settings of this service instance. The context's config is typed as the
 * backend one (services started in-process by tests pass only that), so the git keys are
 * parsed from it with their defaults.
 */
export function gitSettings(ctx: ContentContext): GitConfig {
  let parsed = settings.get(ctx);
  if (!parsed) {
    parsed = gitConfigSchema.parse(ctx.config);
    settings.set(ctx, parsed);
  }
  return parsed;
}

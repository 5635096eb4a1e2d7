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
  /** Largest icon or preview image a publish may carry, decoded. */
  INTEGRATION_IMAGE_MAX_BYTES: z.coerce.number().int().min(1024).default(1_048_576),
  /** Largest script a publish may carry. */
  INTEGRATION_SCRIPT_MAX_BYTES: z.coerce.number().int().min(1024).default(5_242_880),
});
export type IntegrationsConfig = z.infer<typeof integrationsConfigSchema>;

import { z } from 'zod';
import { backendConfigSchema, envBoolean } from '@quire/runtime';

/** Publishing's settings: the backend ones plus where sites without a custom hostname live. */
export const publishingConfigSchema = backendConfigSchema.extend({
  /**
   * Domain under which published sites without their own hostname are served:
   * https://<SITES_BASE_DOMAIN>/<organization id>/<basename or site id>/ (its DNS and the
   * ingress send it to the gateway). Empty (the default): they are served by the gateway
   * itself, at <PUBLIC_BASE_URL>/sites/<organization id>/<basename or site id>/.
   */
  SITES_BASE_DOMAIN: z
    .string()
    .regex(/^(([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(:\d{1,5})?)?$/, 'must be a domain name (optionally with a port)')
    .default(''),
  /**
   * Let the OpenID Connect providers of visitor-auth sites (domain/oidc.ts) be on loopback,
   * private, link-local and unique-local addresses, and on plain http (development, tests,
   * on-premises providers). Metadata addresses are refused even then.
   */
  PUBLISHING_ALLOW_PRIVATE_NETWORKS: envBoolean.default(false),
});
export type PublishingConfig = z.infer<typeof publishingConfigSchema>;

import { z } from 'zod';
import { baseConfigSchema } from '@quire/runtime';

export const SERVICES = ['identity', 'content', 'publishing', 'integrations', 'insights'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** One URL, or several comma-separated (a parsed config given again: the list). */
const httpUrls = z.preprocess(
  (value) => (Array.isArray(value) ? value.join(',') : value),
  z
    .string()
    .transform((value) =>
      value
        .split(',')
        .map((url) => url.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().url('must be a URL, or URLs separated by commas')).min(1, 'must be a URL, or URLs separated by commas')),
);

export const gatewayConfigSchema = baseConfigSchema.extend({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /**
   * The port of the internal listener serving Prometheus metrics at /metrics (on BIND_HOST; 0:
   * any free port). Unset or empty: no metrics are served. Never on PORT, which the public reaches.
   */
  METRICS_PORT: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int().min(0).max(65535).optional()),
  /** Where a service's REST API is: one URL, or its replicas' URLs comma-separated (the gateway spreads requests over them: replicas.ts). */
  IDENTITY_HTTP_URL: httpUrls,
  CONTENT_HTTP_URL: httpUrls,
  PUBLISHING_HTTP_URL: httpUrls,
  INTEGRATIONS_HTTP_URL: httpUrls,
  INSIGHTS_HTTP_URL: httpUrls,
  IDENTITY_GRPC_ADDR: z.string().min(1),
  CONTENT_GRPC_ADDR: z.string().min(1),
  PUBLISHING_GRPC_ADDR: z.string().min(1),
  INTEGRATIONS_GRPC_ADDR: z.string().min(1),
  INSIGHTS_GRPC_ADDR: z.string().min(1),
  /** Requests one token (or, unauthenticated, one address) may make per window. */
  RATE_LIMIT_POINTS: z.coerce.number().int().positive().default(1200),
  RATE_LIMIT_DURATION_SECONDS: z.coerce.number().int().positive().default(60),
  /** How long a resolved token is trusted from the cache; revocation clears it at once. */
  AUTH_CACHE_SECONDS: z.coerce.number().int().min(0).default(30),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(10 * 1024 * 1024),
  PROXY_TIMEOUT_MS: z.coerce.number().int().positive().default(60_000),
  /**
   * Proxies whose X-Forwarded-For we believe (comma-separated addresses, CIDRs, or express's
   * names such as `loopback`). Empty: nobody's, so a client cannot pick the address its
   * failed-auth rate limit counts against.
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim())
        .filter(Boolean),
    ),
});
export type GatewayConfig = z.infer<typeof gatewayConfigSchema>;

/** The URLs of a service's replicas (one, unless the service runs several that the gateway balances itself). */
export function httpUrlsOf(config: GatewayConfig, service: ServiceName): string[] {
  return config[`${service.toUpperCase()}_HTTP_URL` as `${Uppercase<ServiceName>}_HTTP_URL`];
}

export function grpcAddrOf(config: GatewayConfig, service: ServiceName): string {
  return config[`${service.toUpperCase()}_GRPC_ADDR` as `${Uppercase<ServiceName>}_GRPC_ADDR`];
}

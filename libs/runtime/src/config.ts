import { z } from 'zod';

/** A yes/no setting: true, false, 1, 0 or empty (false); a boolean when set in code. */
export const envBoolean = z.preprocess(
  (value) => (typeof value === 'string' ? value.trim().toLowerCase() : (value ?? false)),
  z.union([z.boolean(), z.enum(['true', 'false', '1', '0', '']).transform((value) => value === 'true' || value === '1')]),
);

/** Settings every process reads from its environment (design.md §5, §6). */
export const baseConfigSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  BIND_HOST: z.string().default('127.0.0.1'),
  MONGODB_URI: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\//, 'must be a mongodb:// URI')
    .optional(),
  DB_PREFIX: z
    .string()
    .regex(/^[a-z0-9_]*$/)
    .default('quire_'),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URI')
    .default('redis://127.0.0.1:6379'),
  REDIS_PREFIX: z.string().default('quire:'),
  INTERNAL_HMAC_SECRET: z.string().min(32, 'must be at least 32 characters'),
  PUBLIC_BASE_URL: z.string().url().default('http://localhost:8080'),
  /**
   * Where signed file downloads are served (design.md §4): a host of its own (no cookie, no
   * token, no page of ours lives there), routed to the gateway, which answers only downloads on
   * it. Unset or empty: PUBLIC_BASE_URL's (development).
   */
  FILES_BASE_URL: z
    .union([
      z.literal(''),
      z
        .string()
        .url()
        .regex(/^https?:\/\/[^/]/, 'must be an http(s) URL'),
    ])
    .optional(),
  IDENTITY_GRPC_ADDR: z.string().optional(),
  CONTENT_GRPC_ADDR: z.string().optional(),
  PUBLISHING_GRPC_ADDR: z.string().optional(),
  INTEGRATIONS_GRPC_ADDR: z.string().optional(),
  INSIGHTS_GRPC_ADDR: z.string().optional(),
  GRPC_DEADLINE_MS: z.coerce.number().int().positive().default(5_000),
  /**
   * On SIGTERM, how long the process keeps serving while it reports not ready (/readyz 503, gRPC
   * health NOT_SERVING), so that balancers stop sending it work before it closes its listeners.
   */
  SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(0).max(60_000).default(0),
  /**
   * Per-document serialization of updates (write-serialization.ts): `auto` turns it on for
   * FerretDB, whose updates are not atomic, and off for MongoDB.
   */
  WRITE_SERIALIZATION: z.enum(['auto', 'always', 'off']).default('auto'),
  /** The PostgreSQL database behind FerretDB, when it runs on that backend: its GIN indexes are made through it. */
  QUIRE_FERRETDB_POSTGRES_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
});
export type BaseConfig = z.infer<typeof baseConfigSchema>;

/** The base of signed file addresses: FILES_BASE_URL, else PUBLIC_BASE_URL. */
export function filesBaseUrl(config: Pick<BaseConfig, 'PUBLIC_BASE_URL' | 'FILES_BASE_URL'>): string {
  return config.FILES_BASE_URL || config.PUBLIC_BASE_URL;
}

/** A backend service: REST on HTTP_PORT, gRPC on GRPC_PORT (0 picks a free port). */
export const backendConfigSchema = baseConfigSchema.extend({
  HTTP_PORT: z.coerce.number().int().min(0).max(65535),
  GRPC_PORT: z.coerce.number().int().min(0).max(65535),
  /** gRPC connections are closed after this age (their calls finish first), so that clients find replicas started since. */
  GRPC_MAX_CONNECTION_AGE_MS: z.coerce.number().int().min(1_000).default(60_000),
  /**
   * The service's budget for its in-process caches, in MB: split among the caches its modules
   * declare, in proportion to their declared sizes (caches.ts). Unset or empty: the sum of those
   * sizes (content's 610, publishing's 123).
   */
  CACHE_BUDGET_MB: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().positive().optional()),
  /**
   * Job queues (libs/async, 30 s when unset): how long a running job, and its organization's turn,
   * stay claimed by a worker that stopped renewing them (a crashed process) before another may run it.
   */
  JOB_LOCK_MS: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int().min(1_000).max(600_000).optional()),
  /** Job queues (30 s when unset): how often workers look for such jobs. */
  JOB_STALLED_CHECK_MS: z.preprocess((value) => (value === '' ? undefined : value), z.coerce.number().int().min(500).max(600_000).optional()),
});
export type BackendConfig = z.infer<typeof backendConfigSchema>;

/**
 * Parses the environment against `schema`; a bad or missing variable stops the process
 * with one message naming every offending variable (never its value: it may be secret).
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new Error(`invalid configuration: ${problems}`);
  }
  return parsed.data;
}

import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const BACKENDS = ['identity', 'content', 'publishing', 'integrations', 'insights'] as const;
export type Backend = (typeof BACKENDS)[number];

/** Where a local stack keeps its files: QUIRE_DATA_DIR, default ./.data. */
export function dataDirOf(env = process.env): string {
  const dir = path.resolve(env.QUIRE_DATA_DIR || '.data');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return dir;
}

/** A value generated on first start and kept in the data dir (mode 600). */
export function persistentSecret(dataDir: string, name: string, bytes = 32): string {
  const file = path.join(dataDir, name);
  if (!existsSync(file)) writeFileSync(file, randomBytes(bytes).toString('base64url'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

/** What `npm start` writes so that the CLI can reach the same datastore while it runs. */
export interface StackState {
  pid: number;
  gatewayUrl: string;
  /** Where the gateway serves its Prometheus metrics (an internal listener, not the public one). */
  gatewayMetricsUrl: string;
  /**
   * Every replica's addresses (QUIRE_REPLICAS): the gateway's first is gatewayUrl. Each process's
   * Prometheus metrics: the gateway's on a listener of its own, a backend's on its HTTP listener
   * (internal: only the gateway reaches it, and the gateway never forwards /metrics).
   */
  replicas: { gateway: Array<{ url: string; metricsUrl: string }> } & Record<Backend, Array<{ httpUrl: string; grpcAddress: string; metricsUrl: string }>>;
  mongodbUri: string;
  dbPrefix: string;
  redisUrl: string;
  redisPrefix: string;
  /** The PostgreSQL database FerretDB stores into (services get it as QUIRE_FERRETDB_POSTGRES_URL); absent on other backends. */
  ferretdbPostgresUrl?: string;
  /** Where the supervisor runs the operator commands (`POST /` `{"args": [...]}`, see commands.ts); absent when it could not listen. */
  controlSocket?: string;
  /** With QUIRE_TRACING: Jaeger's query API and UI, and where the services export their spans. */
  jaeger?: { uiUrl: string; otlpUrl: string };
}

export const stateFile = (dataDir: string) => path.join(dataDir, 'stack.json');

export function readState(dataDir: string): StackState | undefined {
  try {
    const state = JSON.parse(readFileSync(stateFile(dataDir), 'utf8')) as StackState;
    process.kill(state.pid, 0); // throws when that stack is no longer running
    return state;
  } catch {
    return undefined;
  }
}

/** Redis key prefix of this data dir: two stacks with two data dirs never share keys. */
export function redisPrefixOf(dataDir: string, env = process.env): string {
  return env.REDIS_PREFIX || `quire:${persistentSecret(dataDir, 'stack-id', 6)}:`;
}

/** The HMAC key services share: INTERNAL_HMAC_SECRET, else one generated into the data dir. */
export function internalSecretOf(dataDir: string, env = process.env): string {
  return env.INTERNAL_HMAC_SECRET || persistentSecret(dataDir, 'internal-secret', 48);
}

/** The key integrations' secrets are encrypted with at rest: INTEGRATIONS_SECRETS_KEY, else one kept in the data dir. */
export function integrationsSecretsKeyOf(dataDir: string, env = process.env): string {
  return env.INTEGRATIONS_SECRETS_KEY || persistentSecret(dataDir, 'integrations-secrets-key', 48);
}

/** Prefix of the service databases: DB_PREFIX, default quire_. */
export function dbPrefixOf(env = process.env): string {
  return env.DB_PREFIX ?? 'quire_';
}

import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Redis from 'ioredis';
import { MongoClient } from 'mongodb';
import { dropStackDatabaseSync, ensureRedis, freePort, startMongo } from '@quire/datastore';
import type { BackendConfig } from '@quire/runtime';

export interface TestEnvironment {
  /** Base URI of the shared test datastore (no database name). */
  mongodbUri: string;
  redisUrl: string;
  /** Unique to this suite: its databases are `<dbPrefix><service>`. */
  dbPrefix: string;
  /** Unique to this suite: its Redis keys start with it. */
  redisPrefix: string;
  /** FerretDB's PostgreSQL database (for its GIN indexes), when the test datastore is FerretDB on PostgreSQL. */
  ferretdbPostgresUrl?: string;
}

type SharedServers = Pick<TestEnvironment, 'mongodbUri' | 'redisUrl' | 'ferretdbPostgresUrl'>;
let shared: Promise<SharedServers> | undefined;

/**
 * The datastore is started once per test run by the runner (QUIRE_TEST_MONGODB_URI);
 * a test file run on its own starts one for itself. Each call gives fresh names.
 */
export async function testEnvironment(): Promise<TestEnvironment> {
  shared ??= (async () => {
    const redis = await ensureRedis(process.env.REDIS_URL);
    const given = process.env.QUIRE_TEST_MONGODB_URI;
    if (given) return { mongodbUri: given, redisUrl: redis.url, ferretdbPostgresUrl: process.env.QUIRE_TEST_FERRETDB_POSTGRES_URL || undefined };
    const mongo = await startOwnDatastore();
    return { mongodbUri: mongo.uri, redisUrl: redis.url, ferretdbPostgresUrl: mongo.postgresUrl };
  })();
  const base = await shared;
  const suffix = randomBytes(5).toString('hex');
  return { ...base, dbPrefix: `t${suffix}_`, redisPrefix: `quire-test:${suffix}:` };
}

/**
 * A test file run on its own: a datastore for this process, killed when it exits, and then
 * removed with its PostgreSQL database (an exit hook runs nothing asynchronous: both are
 * synchronous here).
 */
async function startOwnDatastore() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-test-db-'));
  const mongo = await startMongo({ dataDir, port: await freePort() });
  mongo.detach();
  process.once('exit', () => {
    if (mongo.engine === 'ferretdb') dropStackDatabaseSync(dataDir);
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 3 });
  });
  return mongo;
}

/** Config for an in-process backend service of a test suite (free ports, fresh databases). */
export function testBackendConfig(env: TestEnvironment, overrides: Partial<BackendConfig> = {}): BackendConfig {
  return {
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    BIND_HOST: '127.0.0.1',
    MONGODB_URI: env.mongodbUri,
    DB_PREFIX: env.dbPrefix,
    REDIS_URL: env.redisUrl,
    REDIS_PREFIX: env.redisPrefix,
    INTERNAL_HMAC_SECRET: 'test-secret-test-secret-test-secret-0123',
    PUBLIC_BASE_URL: 'http://127.0.0.1:8080',
    GRPC_DEADLINE_MS: 5_000,
    SHUTDOWN_DRAIN_MS: 0,
    GRPC_MAX_CONNECTION_AGE_MS: 60_000,
    WRITE_SERIALIZATION: 'auto',
    QUIRE_FERRETDB_POSTGRES_URL: env.ferretdbPostgresUrl,
    HTTP_PORT: 0,
    GRPC_PORT: 0,
    ...overrides,
  };
}

/** Drops the suite's databases and Redis keys so the shared servers do not fill up. */
export async function cleanupTestEnvironment(env: TestEnvironment): Promise<void> {
  const client = new MongoClient(env.mongodbUri);
  const redis = new Redis(env.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    const { databases } = await client.db('admin').admin().listDatabases({ nameOnly: true });
    await Promise.all(databases.filter((d) => d.name.startsWith(env.dbPrefix)).map((d) => client.db(d.name).dropDatabase()));
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${env.redisPrefix}*`, 'COUNT', 500);
      if (keys.length) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await client.close();
    redis.disconnect();
  }
}

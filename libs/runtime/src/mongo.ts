import mongoose from 'mongoose';
import type { BaseConfig } from './config';
import type { Logger } from './logger';
import { dbOperationDurations, type MetricsRegistry } from './metrics';
import type { RedisClient } from './redis';
import { ensureFerretDbGinIndexes } from './ferretdb-indexes';
import { announceWrites, enableWriteAnnouncements } from './document-cache';
import { markFerretDb } from './find-by-ids';
import { enableWriteSerialization, isFerretDb, serializeWrites, type WriteSerializationMode } from './write-serialization';

export type Database = mongoose.Connection;

/**
 * The connection string of one service's own database: `<SERVICE>_MONGODB_URI` when set,
 * else MONGODB_URI with the database `<DB_PREFIX><service>` (design.md §5).
 */
export function databaseUri(service: string, config: Pick<BaseConfig, 'MONGODB_URI' | 'DB_PREFIX'>, env = process.env): string {
  const own = env[`${service.toUpperCase()}_MONGODB_URI`];
  if (own) return own;
  if (!config.MONGODB_URI) throw new Error(`invalid configuration: MONGODB_URI or ${service.toUpperCase()}_MONGODB_URI is required`);
  const match = /^(mongodb(?:\+srv)?:\/\/[^/?]+)(?:\/[^?]*)?(\?.*)?$/.exec(config.MONGODB_URI);
  if (!match) throw new Error('invalid configuration: MONGODB_URI is not a MongoDB connection string');
  return `${match[1]}/${config.DB_PREFIX}${service}${match[2] ?? ''}`;
}

/**
 * How long an operation waits for a datastore that is not there before it fails (and the
 * caller gets a 503): for the server, then for a connection to it (one being opened to a
 * datastore that stopped answering). Short, so an outage is a quick "retry" rather than a hang.
 */
const OPERATION_WAIT_MS = 800;
/**
 * How long opening a connection (TCP and handshake) may take before it counts as down. The
 * driver also gives each check of the server (a `hello` every heartbeat: FerretDB announces no
 * topology version, so it is polled) this long to answer, and a check that times out resets the
 * pool and interrupts every operation in flight: below a busy datastore's slowest answer, a load
 * spike would fail requests that were merely slow. Operations do not wait this long (OPERATION_WAIT_MS).
 */
const CONNECT_TIMEOUT_MS = 2_000;
/** How long a starting service waits for its datastore to come up (it may be restarting). */
const STARTUP_WAIT_MS = 60_000;

/** Opens the service's database and builds the indexes its models declare. */
export async function connectDatabase(
  service: string,
  config: Pick<BaseConfig, 'MONGODB_URI' | 'DB_PREFIX'>,
  logger: Logger,
  registerModels: (connection: Database) => void,
  options: {
    /** Serializes updates per document where the engine needs it (FerretDB); see write-serialization.ts. */
    redis?: RedisClient;
    writeSerialization?: WriteSerializationMode;
    /** FerretDB's PostgreSQL database, when it runs on that backend: GIN indexes are made there. */
    ferretdbPostgresUrl?: string;
    /** Where to report each datastore command's duration (db_client_operation_duration_seconds). */
    metrics?: MetricsRegistry;
  } = {},
): Promise<Database> {
  const uri = databaseUri(service, config);
  const deadline = Date.now() + STARTUP_WAIT_MS;
  for (;;) {
    const connection = mongoose.createConnection(uri, {
      serverSelectionTimeoutMS: OPERATION_WAIT_MS,
      waitQueueTimeoutMS: OPERATION_WAIT_MS,
      // The driver's default waits 30 s for a handshake with a port that accepts but never answers.
      connectTimeoutMS: CONNECT_TIMEOUT_MS,
      // The driver retries a connection that could not be established up to twice more
      // ("overload" back-off), which turns one failure into three: an outage must be a fast
      // 503, and the client retries. Ordinary retryable reads and writes stay on.
      maxAdaptiveRetries: 0,
      heartbeatFrequencyMS: 2_000,
      // No buffering while disconnected: an operation fails after the selection timeout
      // instead of queueing for mongoose's 10 s.
      bufferCommands: false,
      autoIndex: false,
      autoCreate: true,
      // The driver's events of each command: their durations are reported (options.metrics).
      monitorCommands: options.metrics !== undefined,
    });
    try {
      await connection.asPromise();
    } catch (error) {
      await connection.close().catch(() => {});
      if (Date.now() > deadline) throw error;
      logger.warn({ err: (error as Error).message }, 'database not reachable yet; retrying');
      await new Promise((resolve) => setTimeout(resolve, 500));
      continue;
    }
    if (options.metrics) reportCommands(connection, options.metrics);
    connection.on('disconnected', () => logger.info('database disconnected'));
    connection.on('reconnected', () => logger.info('database reconnected'));
    registerModels(connection);
    if (await isFerretDb(connection)) markFerretDb(connection);
    if (options.redis) {
      enableWriteAnnouncements(connection, options.redis, logger);
      const on = await enableWriteSerialization(connection, { redis: options.redis, service, mode: options.writeSerialization, logger });
      logger.info({ writeSerialization: on }, on ? 'updates serialized per document (FerretDB)' : 'updates rely on the engine (per-document atomic)');
    }
    // Index creation is explicit so a service never serves before its indexes exist.
    await Promise.all(Object.values(connection.models).map((model) => model.createIndexes()));
    if (options.ferretdbPostgresUrl) {
      // Without them every FerretDB query scans; the service still works, only slower.
      await ensureFerretDbGinIndexes(connection, options.ferretdbPostgresUrl, logger).catch((error) =>
        logger.warn({ err: (error as Error).message }, 'could not create the GIN indexes FerretDB on PostgreSQL needs'),
      );
    }
    return connection;
  }
}

/** Commands of the driver's own handshake and monitoring, not the service's work. */
const UNREPORTED_COMMANDS = new Set(['hello', 'ismaster', 'isMaster', 'ping', 'buildInfo', 'saslStart', 'saslContinue', 'endSessions']);

/**
 * Reports the duration of each command the service sends to its database, by operation and
 * outcome, as OpenTelemetry's db.client.operation.duration (in seconds) names it.
 */
function reportCommands(connection: Database, registry: MetricsRegistry): void {
  const durations = dbOperationDurations(registry);
  const observe = (event: { commandName: string; databaseName: string; duration: number }, errorType: string) => {
    if (UNREPORTED_COMMANDS.has(event.commandName)) return;
    durations.observe(
      { db_system_name: 'mongodb', db_namespace: event.databaseName, db_operation_name: event.commandName, error_type: errorType },
      event.duration / 1000,
    );
  };
  const client = connection.getClient();
  client.on('commandSucceeded', (event) => observe(event, ''));
  client.on('commandFailed', (event) => observe(event, (event.failure as { codeName?: string })?.codeName ?? event.failure?.name ?? 'error'));
}

/** Each model of a service: its schema and its collection name. */
// Schemas and models of every document type: mongoose's own generics take `any` here.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ModelDefinitions<M> = { [K in keyof M]: readonly [schema: mongoose.Schema<any>, collection: string] };

/**
 * The one way a service declares its models: `register` (for connectDatabase) and `of`
 * (the typed models of a connection) from a single table, so the two never drift apart.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function defineModels<M extends { [K in keyof M]: mongoose.Model<any> }>(definitions: ModelDefinitions<M>) {
  const names = Object.keys(definitions) as Array<keyof M & string>;
  return {
    definitions,
    register(db: Database): void {
      for (const name of names) {
        serializeWrites(definitions[name][0]);
        announceWrites(definitions[name][0]);
        db.model(name, definitions[name][0], definitions[name][1]);
      }
    },
    of(db: Database): M {
      return Object.fromEntries(names.map((name) => [name, db.model(name)])) as M;
    },
  };
}

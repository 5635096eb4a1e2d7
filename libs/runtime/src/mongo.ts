import mongoose from 'mongoose';
import type { BaseConfig } from './config';
import type { Logger } from './logger';

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

/** Opens the service's database and builds the indexes its models declare. */
export async function connectDatabase(
  service: string,
  config: Pick<BaseConfig, 'MONGODB_URI' | 'DB_PREFIX'>,
  logger: Logger,
  registerModels: (connection: Database) => void,
): Promise<Database> {
  const connection = mongoose.createConnection(databaseUri(service, config), {
    serverSelectionTimeoutMS: 5_000,
    heartbeatFrequencyMS: 2_000,
    autoIndex: false,
    autoCreate: true,
  });
  connection.on('disconnected', () => logger.info('database disconnected'));
  connection.on('reconnected', () => logger.info('database reconnected'));
  await connection.asPromise();
  registerModels(connection);
  // Index creation is explicit so a service never serves before its indexes exist.
  await Promise.all(Object.values(connection.models).map((model) => model.createIndexes()));
  return connection;
}

/** Each model of a service: its schema and its collection name. */
export type ModelDefinitions<M> = { [K in keyof M]: readonly [schema: mongoose.Schema<any>, collection: string] };

/**
 * The one way a service declares its models: `register` (for connectDatabase) and `of`
 * (the typed models of a connection) from a single table, so the two never drift apart.
 */
export function defineModels<M extends { [K in keyof M]: mongoose.Model<any> }>(definitions: ModelDefinitions<M>) {
  const names = Object.keys(definitions) as Array<keyof M & string>;
  return {
    definitions,
    register(db: Database): void {
      for (const name of names) db.model(name, definitions[name][0], definitions[name][1]);
    },
    of(db: Database): M {
      return Object.fromEntries(names.map((name) => [name, db.model(name)])) as M;
    },
  };
}

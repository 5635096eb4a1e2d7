import { freePort, startMongo } from '@quire/datastore';
import { withIdentityAdmin } from '@quire/identity';
import { baseConfigSchema, loadConfig } from '@quire/runtime';
import { parseCommand, UsageError } from './commands';
import { dataDirOf, dbPrefixOf, internalSecretOf, readState, redisPrefixOf } from './layout';

/** `npm run cli -- <command>`: the operator commands (./commands.ts) against identity's database. */

function fail(message: string, code = 2): never {
  console.error(message);
  process.exit(code);
}

/** Runs `action` against identity's database: the running stack's, or a datastore started for the occasion. */
async function withDatabase<T>(action: Parameters<typeof withIdentityAdmin<T>>[1]): Promise<T> {
  const dataDir = dataDirOf();
  const running = readState(dataDir);
  let stop = async () => {};
  let mongodbUri = running?.mongodbUri ?? process.env.MONGODB_URI;
  let ferretdbPostgresUrl = running ? running.ferretdbPostgresUrl : process.env.QUIRE_FERRETDB_POSTGRES_URL;
  if (!mongodbUri) {
    const mongo = await startMongo({ dataDir, port: await freePort() });
    mongodbUri = mongo.uri;
    ferretdbPostgresUrl = mongo.postgresUrl;
    stop = mongo.stop;
  }
  try {
    const config = loadConfig(baseConfigSchema, {
      ...process.env,
      MONGODB_URI: mongodbUri,
      QUIRE_FERRETDB_POSTGRES_URL: ferretdbPostgresUrl || undefined,
      DB_PREFIX: running?.dbPrefix ?? dbPrefixOf(),
      REDIS_URL: running?.redisUrl ?? process.env.REDIS_URL,
      REDIS_PREFIX: running?.redisPrefix ?? redisPrefixOf(dataDir),
      INTERNAL_HMAC_SECRET: internalSecretOf(dataDir),
    });
    return await withIdentityAdmin(config, action);
  } finally {
    await stop();
  }
}

function print(result: Record<string, unknown>, json: boolean) {
  if (json) console.log(JSON.stringify(result));
  else for (const [key, value] of Object.entries(result)) console.log(`${key}: ${value}`);
}

async function main() {
  let command;
  try {
    command = parseCommand(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError) fail(error.message);
    throw error;
  }
  print(await withDatabase(command.run), command.json);
}

main().then(
  () => process.exit(0),
  (error) => fail(error instanceof Error ? error.message : String(error), 1),
);

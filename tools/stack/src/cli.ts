import { parseArgs } from 'node:util';
import { freePort, startMongo } from '@quire/datastore';
import { addMemberWithToken, bootstrapAdmin, revokeTokenBySecret, withIdentityAdmin } from '@quire/identity';
import { baseConfigSchema, loadConfig, ROLES, type Role } from '@quire/runtime';
import { dataDirOf, dbPrefixOf, internalSecretOf, readState, redisPrefixOf } from './layout';

const USAGE = `Usage:
  npm run cli -- bootstrap --email <email> --org <title> [--name <display name>] [--json]
  npm run cli -- add-member --org <organizationId> --email <email> --role <${ROLES.join('|')}|guest> [--json]
  npm run cli -- revoke-token --token <token> [--json]

Uses the same configuration as npm start (QUIRE_DATA_DIR, MONGODB_URI, REDIS_URL) and
works whether or not the stack is running.`;

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

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

async function main() {
  const [command, ...rest] = process.argv.slice(2);
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: 'string' },
      org: { type: 'string' },
      name: { type: 'string' },
      role: { type: 'string' },
      token: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
  });
  switch (command) {
    case 'bootstrap': {
      if (!values.email || !EMAIL.test(values.email)) fail(`--email: a valid e-mail address is required\n${USAGE}`);
      if (!values.org || values.org.trim().length < 2) fail(`--org: an organization title of at least 2 characters is required\n${USAGE}`);
      const result = await withDatabase((ctx) =>
        bootstrapAdmin(ctx, { email: values.email!, organizationTitle: values.org!.trim(), displayName: values.name }),
      );
      return print(result, values.json);
    }
    case 'add-member': {
      if (!values.org) fail(`--org: an organization id is required\n${USAGE}`);
      if (!values.email || !EMAIL.test(values.email)) fail(`--email: a valid e-mail address is required\n${USAGE}`);
      const role = values.role === 'guest' || values.role === 'null' ? null : (values.role as Role);
      if (role !== null && !ROLES.includes(role)) fail(`--role: must be one of ${ROLES.join(', ')}, guest\n${USAGE}`);
      const result = await withDatabase((ctx) => addMemberWithToken(ctx, { organizationId: values.org!, email: values.email!, role }));
      return print(result, values.json);
    }
    case 'revoke-token': {
      if (!values.token) fail(`--token: the token to revoke is required\n${USAGE}`);
      const revoked = await withDatabase((ctx) => revokeTokenBySecret(ctx, values.token!));
      return print({ revoked }, values.json);
    }
    default:
      fail(USAGE);
  }
}

main().then(
  () => process.exit(0),
  (error) => fail(error instanceof Error ? error.message : String(error), 1),
);

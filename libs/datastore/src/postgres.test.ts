import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, it } from '@jest/globals';
import { MongoClient } from 'mongodb';
import { startMongo } from './mongo';
import { postgresAnswers, withDatabase, withPostgres } from './pg-client';
import { dropOrphanedDatabases, dropStackDatabase, ensureStackDatabase, LOCAL_DEFAULT_POSTGRES_URL, stackDatabaseName } from './postgres';
import { postgresBinDir, startOwnPostgres } from './postgres-cluster';
import { freePort } from './process';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'quire-datastore-test-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => tempDirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The server the launcher would find running (POSTGRES_URL, else the local default). */
const serverUrl = process.env.POSTGRES_URL || LOCAL_DEFAULT_POSTGRES_URL;

/**
 * FerretDB on PostgreSQL is the default engine, and this suite is what tests it: without a
 * PostgreSQL it fails (a suite that returned early would pass without testing anything).
 */
async function assertPostgresAnswers(): Promise<void> {
  assert.ok(
    await postgresAnswers(serverUrl),
    `no PostgreSQL answers at ${new URL(serverUrl).host}: this suite tests the default engine (FerretDB on PostgreSQL) and needs one; ` +
      'start one there (user postgres, no password) or point POSTGRES_URL at one',
  );
}

const databaseExists = (url: string, name: string) =>
  withPostgres(withDatabase(url, 'postgres'), async (client) => (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1);

/** Writes a document through the datastore and reads it back. */
async function roundTrip(uri: string, database: string): Promise<unknown> {
  const client = new MongoClient(uri);
  try {
    const things = client.db(database).collection<{ _id: string; title: string }>('things');
    await things.insertOne({ _id: 'one', title: 'kept' });
    return (await things.findOne({ _id: 'one' }))?.title;
  } finally {
    await client.close();
  }
}

describe('datastore: FerretDB on PostgreSQL', () => {
  it('names a database per data dir: stable for one dir, distinct across dirs, a valid identifier', () => {
    const name = stackDatabaseName('/srv/quire/a');
    assert.match(name, /^quire_[0-9a-f]{12}$/);
    assert.equal(stackDatabaseName('/srv/quire/a/'), name, 'the same directory, however written');
    assert.notEqual(stackDatabaseName('/srv/quire/b'), name);
  });

  // Skipped when process.env.MONGODB_URI: MONGODB_URI chooses another datastore
  (process.env.MONGODB_URI ? it.skip : it)(
    'runs FerretDB on the running PostgreSQL, in the data dir’s own database, which dropStackDatabase removes',
    async () => {
      await assertPostgresAnswers();
      const dataDir = tempDir();
      const expected = stackDatabaseName(dataDir);
      const lines: string[] = [];
      const mongo = await startMongo({ dataDir, port: await freePort(), log: (line) => lines.push(line) });
      try {
        assert.equal(mongo.engine, 'ferretdb');
        assert.equal(mongo.backend, 'postgresql');
        assert.equal(new URL(mongo.postgresUrl!).pathname, `/${expected}`);
        assert.ok(
          lines.some((line) => line.startsWith('datastore: FerretDB on PostgreSQL at') && line.includes(`database ${expected}`)),
          lines.join('\n'),
        );
        assert.equal(await roundTrip(mongo.uri, 'quire_probe'), 'kept');
        // The document is in that PostgreSQL database: FerretDB keeps a schema per MongoDB database.
        const schemas = await withPostgres(mongo.postgresUrl!, async (client) =>
          (await client.query('SELECT nspname FROM pg_namespace')).rows.map((r) => r.nspname),
        );
        assert.ok(schemas.includes('quire_probe'), `schemas: ${schemas.join(', ')}`);
      } finally {
        await mongo.stop();
      }
      assert.ok(await databaseExists(serverUrl, expected), 'the data stays for the next start');
      assert.equal(await dropStackDatabase(dataDir), true);
      assert.equal(await databaseExists(serverUrl, expected), false, 'dropped');
    },
  );

  it('sweeps the databases of temporary data dirs that are gone, and only those', async () => {
    await assertPostgresAnswers();
    const gone = tempDir();
    const kept = tempDir();
    await ensureStackDatabase(serverUrl, gone);
    await ensureStackDatabase(serverUrl, kept);
    rmSync(gone, { recursive: true });
    try {
      const dropped = await dropOrphanedDatabases();
      assert.ok(dropped.includes(stackDatabaseName(gone)), `dropped: ${dropped.join(', ')}`);
      assert.ok(!dropped.includes(stackDatabaseName(kept)));
      assert.equal(await databaseExists(serverUrl, stackDatabaseName(gone)), false);
      assert.equal(await databaseExists(serverUrl, stackDatabaseName(kept)), true);
    } finally {
      await dropStackDatabase(kept);
    }
  });

  it('runs a cluster of its own in the data dir when only the server binaries are there: loopback, password, not root', async () => {
    assert.ok(postgresBinDir(), "no PostgreSQL server binaries installed (initdb and postgres): the launcher's own-cluster choice cannot be tested");
    const dataDir = tempDir();
    const server = await startOwnPostgres(dataDir, () => {});
    const previous = process.env.POSTGRES_URL;
    try {
      const settings = await withPostgres(server.url, async (client) => {
        const { rows } = await client.query("SELECT current_setting('listen_addresses') AS listen, current_setting('data_directory') AS dir");
        return rows[0];
      });
      assert.equal(settings.listen, '127.0.0.1');
      assert.equal(settings.dir, path.join(dataDir, 'postgres'));
      // The postmaster (its pid is the first line of postmaster.pid) outlives our session's backend.
      const postmaster = readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0];
      if (process.getuid?.() === 0) assert.notEqual(statSync(`/proc/${postmaster}`).uid, 0, 'PostgreSQL does not run as root');
      const withoutPassword = new URL(server.url);
      withoutPassword.password = '';
      assert.equal(await postgresAnswers(withoutPassword.toString()), false, 'a password is required');

      // FerretDB on it, as the launcher runs it (POSTGRES_URL is the first choice).
      process.env.POSTGRES_URL = server.url;
      const mongo = await startMongo({ dataDir, port: await freePort() });
      try {
        assert.equal(mongo.backend, 'postgresql');
        assert.equal(await roundTrip(mongo.uri, 'quire_probe'), 'kept');
        assert.ok(await databaseExists(server.url, stackDatabaseName(dataDir)));
      } finally {
        await mongo.stop();
      }
    } finally {
      if (previous === undefined) delete process.env.POSTGRES_URL;
      else process.env.POSTGRES_URL = previous;
      await server.stop();
    }
    assert.equal(await postgresAnswers(server.url), false, 'stopped with the handle');
  });
});

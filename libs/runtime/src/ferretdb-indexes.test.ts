import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import mongoose, { Schema } from 'mongoose';
import { Client } from 'pg';
import { indexedFields } from './ferretdb-indexes';
import { createLogger } from './logger';
import { connectDatabase, defineModels } from './mongo';

// The test runner exports the datastore it started; the explain checks need FerretDB on PostgreSQL.
const MONGODB_URI = process.env.QUIRE_TEST_MONGODB_URI;
const POSTGRES_URL = process.env.QUIRE_TEST_FERRETDB_POSTGRES_URL;
const SUFFIX = randomBytes(4).toString('hex');

interface SpaceLike {
  _id: string;
  organizationId: string;
  title: string;
  createdAt: Date;
  deleted: boolean;
  git?: { oid: string };
}

const schema = new Schema<SpaceLike>(
  { _id: String, organizationId: String, title: String, createdAt: Date, deleted: Boolean, git: { oid: String } },
  { versionKey: false },
);
schema.index({ organizationId: 1, createdAt: -1, _id: -1 });
schema.index({ 'git.oid': 1 });
const models = defineModels<{ Space: mongoose.Model<SpaceLike> }>({ Space: [schema, 'spaces'] });

/** Every plan node of a FerretDB explain (PostgreSQL's EXPLAIN in queryPlanner.Plan). */
function planNodes(explain: { queryPlanner?: { Plan?: unknown } }): Array<Record<string, unknown>> {
  const nodes: Array<Record<string, unknown>> = [];
  const pending = [explain.queryPlanner?.Plan];
  while (pending.length) {
    const node = pending.pop() as Record<string, unknown> | undefined;
    if (!node) continue;
    nodes.push(node);
    for (const child of (node.Plans as unknown[] | undefined) ?? []) pending.push(child);
  }
  return nodes;
}

describe('indexes FerretDB on PostgreSQL really uses', () => {
  it('derives one indexed field list per collection from the schemas, nested fields left out', async () => {
    const connection = mongoose.createConnection();
    models.register(connection);
    assert.deepEqual(indexedFields(connection).get('spaces'), ['_id', 'createdAt', 'organizationId']);
    await connection.close();
  });

  // Skipped when !(MONGODB_URI && POSTGRES_URL): needs FerretDB on PostgreSQL
  (!(MONGODB_URI && POSTGRES_URL) ? describe.skip : describe)('explain on the real engine', () => {
    let db: mongoose.Connection;
    let Space: mongoose.Model<SpaceLike>;

    beforeAll(async () => {
      db = await connectDatabase('explain', { MONGODB_URI, DB_PREFIX: `t${SUFFIX}_` }, createLogger('explain-test', 'silent'), models.register, {
        ferretdbPostgresUrl: POSTGRES_URL,
      });
      Space = models.of(db).Space;
      const now = Date.now();
      await Space.insertMany(
        Array.from({ length: 3_000 }, (_, i) => ({
          _id: `s${i}`,
          organizationId: `org${i % 30}`,
          title: `Space ${i}`,
          createdAt: new Date(now - i * 1000),
          deleted: false,
        })),
      );
      // Production tables get their statistics from autovacuum; here we do not wait for it.
      const client = new Client({ connectionString: POSTGRES_URL });
      await client.connect();
      await client.query(`ANALYZE`);
      await client.end();
    });

    afterAll(async () => {
      await db?.dropDatabase().catch(() => {});
      await db?.close();
    });

    const usesIndex = (explain: unknown) => {
      const nodes = planNodes(explain as never);
      assert.ok(
        nodes.some((node) => /Index/.test(String(node['Node Type'])) && /^quire_gin_/.test(String(node['Index Name']))),
        `expected an index scan, got ${JSON.stringify(nodes.map((n) => n['Node Type']))}`,
      );
    };

    it('serves a findById from a GIN index', async () => {
      usesIndex(await Space.find({ _id: 's1234' }).explain());
      assert.equal((await Space.findById('s1234').lean())?.title, 'Space 1234');
    });

    it('serves a filtered keyset page from a GIN index (the filter stays top-level)', async () => {
      // The shape libs/http keysetPage gives a next page: equality filters beside the $or.
      const at = new Date(Date.now() - 500_000);
      const page = { organizationId: 'org7', $or: [{ createdAt: { $lt: at } }, { createdAt: at, _id: { $lt: 's500' } }] };
      usesIndex(await Space.find(page).sort({ createdAt: -1, _id: -1 }).limit(10).explain());
      usesIndex(await Space.find({ organizationId: 'org7', deleted: false }).explain());
    });
  });
});

import assert from 'node:assert/strict';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import mongoose, { Schema } from 'mongoose';
import { databaseUri, requestContext } from '@quire/runtime';
import { cleanupTestEnvironment, testEnvironment, type TestEnvironment } from '@quire/testkit';
import { HttpError } from './errors';
import { decodeCursor, encodeCursor, keysetPage, listEnvelope } from './pagination';

interface Row {
  _id: string;
  group: string;
  at: Date;
}

describe('keyset pagination against the real datastore', () => {
  let env: TestEnvironment;
  let connection: mongoose.Connection;
  let Rows: mongoose.Model<Row>;

  beforeAll(async () => {
    env = await testEnvironment();
    connection = await mongoose.createConnection(databaseUri('pagination', { MONGODB_URI: env.mongodbUri, DB_PREFIX: env.dbPrefix })).asPromise();
    const schema = new Schema<Row>({ _id: String, group: String, at: Date }, { versionKey: false });
    schema.index({ group: 1, at: -1, _id: -1 });
    Rows = connection.model<Row>('Row', schema) as unknown as mongoose.Model<Row>;
    await Rows.createIndexes();
    const base = Date.UTC(2026, 0, 1);
    // 25 rows, timestamps repeating in threes so the id tie-break matters.
    await Rows.insertMany(
      Array.from({ length: 25 }, (_, i) => ({
        _id: `r${String(i).padStart(2, '0')}`,
        group: i % 5 === 0 ? 'b' : 'a',
        at: new Date(base + Math.floor(i / 3) * 1000),
      })),
    );
  });

  afterAll(async () => {
    await connection.close();
    await cleanupTestEnvironment(env);
  });

  async function walk(order: 'asc' | 'desc', limit: number, filter = {}) {
    const seen: string[] = [];
    let page: string | undefined;
    let pages = 0;
    do {
      const result = await keysetPage(Rows, { filter, sortField: 'at', order, limit, page });
      assert.ok(result.items.length <= limit);
      seen.push(...result.items.map((r) => r._id));
      page = result.next;
      pages++;
      assert.ok(pages < 100, 'pagination must terminate');
    } while (page);
    return { seen, pages };
  }

  it('visits every row exactly once, in (at, id) order, ascending and descending', async () => {
    const asc = await walk('asc', 7);
    assert.deepEqual(
      asc.seen,
      Array.from({ length: 25 }, (_, i) => `r${String(i).padStart(2, '0')}`),
    );
    assert.equal(asc.pages, 4);
    const desc = await walk('desc', 4);
    assert.deepEqual(desc.seen, [...asc.seen].reverse());
  });

  it('counts the whole filtered list and omits next on the last page', async () => {
    const first = await keysetPage(Rows, { filter: { group: 'b' }, sortField: 'at', order: 'desc', limit: 3 });
    assert.equal(first.count, 5);
    assert.equal(first.items.length, 3);
    assert.ok(first.next);
    const second = await keysetPage(Rows, { filter: { group: 'b' }, sortField: 'at', order: 'desc', limit: 3, page: first.next });
    assert.equal(second.items.length, 2);
    assert.equal(second.next, undefined);
    assert.deepEqual(listEnvelope(second.items, second.count, second.next), { count: 5, items: second.items });
  });

  it('refuses a cursor that is garbage or belongs to another sort key', async () => {
    await assert.rejects(
      keysetPage(Rows, { filter: {}, sortField: 'at', order: 'asc', limit: 3, page: 'not-a-cursor' }),
      (e: HttpError) => e.status === 400 && /page/.test(e.message),
    );
    const foreign = encodeCursor('joinedAt', new Date(), 'x');
    assert.throws(() => decodeCursor('at', foreign), HttpError);
  });

  it('refuses forged and edited cursors with a 400 before they reach a query', async () => {
    const forge = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
    const genuine = encodeCursor('at', new Date(Date.UTC(2026, 0, 1)), 'r03');
    const [payload, mac] = genuine.split('.');
    const forged = [
      forge(['at', { v: { $gt: '' } }, 'x']),
      `${forge(['at', { v: { $gt: '' } }, 'x'])}.${mac}`,
      `${forge(['at', { d: '2026-01-01T00:00:00.000Z' }, { $ne: null }])}.${mac}`,
      `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      `${payload}x.${mac}`,
      '.',
      `${payload}.`,
    ];
    for (const page of forged) {
      await assert.rejects(
        keysetPage(Rows, { filter: {}, sortField: 'at', order: 'asc', limit: 3, page }),
        (e: HttpError) => e.status === 400 && /page/.test(e.message),
        page,
      );
    }
    assert.deepEqual(decodeCursor('at', genuine), { value: new Date(Date.UTC(2026, 0, 1)), id: 'r03' });
  });

  it("refuses a cursor of another list: another filter's, or the same list's asked at another path", async () => {
    const refused = (e: HttpError) => e.status === 400 && /page/.test(e.message);
    const list = (group: string, page?: string) => keysetPage(Rows, { filter: { group }, sortField: 'at', order: 'asc', limit: 2, page });
    const ofA = (await list('a')).next;
    await assert.rejects(list('b', ofA), refused);
    const at = <T>(path: string, run: () => Promise<T>) => requestContext.run({ requestId: 'r', path }, run);
    const asked = (await at('/v1/orgs/one/things', () => list('a'))).next;
    assert.equal((await at('/v1/orgs/one/things', () => list('a', asked))).items.length, 2);
    await assert.rejects(
      at('/v1/orgs/two/things', () => list('a', asked)),
      refused,
    );
    await assert.rejects(list('a', asked), refused);
  });
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import mongoose, { Schema } from 'mongoose';
import { documentCacheOf, type DocumentCache } from './document-cache';
import { createLogger } from './logger';
import { connectDatabase, defineModels } from './mongo';
import { createRedis, type RedisClient } from './redis';

// Not @quire/testkit (it depends on this package): the test runner exports the datastore's
// URI and REDIS_URL; a unique database and key prefix keep this suite apart from others.
const MONGODB_URI = process.env.QUIRE_TEST_MONGODB_URI;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SUFFIX = randomBytes(4).toString('hex');
const logger = createLogger('document-cache-test', 'silent');

interface NoteDoc {
  _id: string;
  owner: string;
  title: string;
}

const noteSchema = new Schema<NoteDoc>({ _id: String, owner: String, title: String }, { versionKey: false });
const models = defineModels<{ Note: mongoose.Model<NoteDoc> }>({ Note: [noteSchema, 'notes'] });

async function until(what: string, condition: () => Promise<boolean> | boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** One service process: its connection, its Redis and its cache. */
interface Replica {
  db: mongoose.Connection;
  redis: RedisClient;
  cache: DocumentCache;
  Note: mongoose.Model<NoteDoc>;
}

async function replica(): Promise<Replica> {
  const redis = createRedis({ REDIS_URL, REDIS_PREFIX: `quire-test:${SUFFIX}:` }, logger);
  const db = await connectDatabase('doccache', { MONGODB_URI: MONGODB_URI!, DB_PREFIX: `t${SUFFIX}_` }, logger, models.register, { redis });
  const cache = documentCacheOf(redis, logger);
  await until('the subscription', () => cache.active);
  return { db, redis, cache, Note: models.of(db).Note };
}

// Skipped when !MONGODB_URI: needs the test runner datastore
(!MONGODB_URI ? describe.skip : describe)('DocumentCache: cached reads dropped by writes (real datastore, real Redis)', () => {
  let a: Replica;
  let b: Replica;

  beforeAll(async () => {
    a = await replica();
    b = await replica();
  });
  afterAll(async () => {
    await a?.db.dropDatabase().catch(() => {});
    for (const r of [a, b]) {
      r?.cache.close();
      await r?.db.close();
      r?.redis.disconnect();
    }
  });

  /** Changes a document behind the models' back (no hooks): only a cache still serves the old title. */
  const rewriteRaw = (r: Replica, id: string, title: string) => r.Note.collection.updateOne({ _id: id } as never, { $set: { title } });

  it('serves a document from memory until a write of it, in the writer’s process at once', async () => {
    await a.Note.create({ _id: 'n1', owner: 'o', title: 'one' });
    assert.equal((await a.cache.findById<NoteDoc>(a.Note, 'n1'))?.title, 'one');
    await rewriteRaw(a, 'n1', 'behind the back');
    assert.equal((await a.cache.findById<NoteDoc>(a.Note, 'n1'))?.title, 'one', 'the second read came from the cache');

    await a.Note.updateOne({ _id: 'n1' }, { $set: { title: 'two' } });
    assert.equal((await a.cache.findById<NoteDoc>(a.Note, 'n1'))?.title, 'two', 'the writer never reads its old version');
    assert.equal(await a.cache.findById(a.Note, 'missing'), null);
  });

  it('reads many by id: the cached ones from memory, the others in one read, in the order asked', async () => {
    await a.Note.create([
      { _id: 'm1', owner: 'many', title: 'm1' },
      { _id: 'm2', owner: 'many', title: 'm2' },
    ]);
    assert.equal((await a.cache.findById<NoteDoc>(a.Note, 'm1'))?.title, 'm1');
    await rewriteRaw(a, 'm1', 'behind the back');
    await rewriteRaw(a, 'm2', 'm2 as stored');
    const reads: unknown[] = [];
    mongoose.set('debug', (collection: string, method: string) => reads.push(`${collection}.${method}`));
    try {
      const docs = await a.cache.findByIds<NoteDoc>(a.Note, ['m2', 'missing', 'm1']);
      assert.deepEqual(
        docs.map((d) => d.title),
        ['m2 as stored', 'm1'],
        'm1 from the cache, m2 read, the absent left out',
      );
    } finally {
      mongoose.set('debug', false);
    }
    assert.deepEqual(reads, ['notes.find'], 'one read for what the cache did not have');
    assert.equal((await a.cache.findById<NoteDoc>(a.Note, 'm2'))?.title, 'm2 as stored', 'and it is kept');
  });

  it('hands out copies: a caller changing its document changes nothing cached', async () => {
    const doc = (await a.cache.findById<NoteDoc>(a.Note, 'n1'))!;
    doc.title = 'mutated by a caller';
    assert.equal((await a.cache.findById<NoteDoc>(a.Note, 'n1'))?.title, 'two');
  });

  it('drops the document in every other replica through the broadcast', async () => {
    await b.Note.create({ _id: 'n2', owner: 'o', title: 'first' });
    assert.equal((await b.cache.findById<NoteDoc>(b.Note, 'n2'))?.title, 'first');
    await a.Note.findOneAndUpdate({ _id: 'n2' }, { $set: { title: 'second' } });
    await until('replica b to drop n2', async () => (await b.cache.findById<NoteDoc>(b.Note, 'n2'))?.title === 'second');
    // The read that saw 'second' may have been overtaken by the broadcast itself (not kept): one more keeps it.
    assert.equal((await b.cache.findById<NoteDoc>(b.Note, 'n2'))?.title, 'second');
    // A write whose filter names no id drops the whole collection everywhere.
    await rewriteRaw(b, 'n2', 'raw');
    assert.equal((await b.cache.findById<NoteDoc>(b.Note, 'n2'))?.title, 'second', 'cached in b');
    await a.Note.updateMany({ owner: 'o' }, { $set: { owner: 'p' } });
    await until('replica b to drop the collection', async () => (await b.cache.findById<NoteDoc>(b.Note, 'n2'))?.title === 'raw');
  });

  it('keeps query results until any write to the collection, inserts included', async () => {
    const byOwner = (r: Replica) => r.cache.query(r.Note, 'owner=p', () => r.Note.find({ owner: 'p' }).sort({ _id: 1 }).lean<NoteDoc[]>());
    assert.deepEqual(
      (await byOwner(a)).map((n) => n._id),
      ['n1', 'n2'],
    );
    await a.Note.create({ _id: 'n3', owner: 'p', title: 'three' });
    assert.deepEqual(
      (await byOwner(a)).map((n) => n._id),
      ['n1', 'n2', 'n3'],
    );
    await a.Note.deleteOne({ _id: 'n1' });
    assert.deepEqual(
      (await byOwner(a)).map((n) => n._id),
      ['n2', 'n3'],
    );
    await a.Note.insertMany([{ _id: 'n4', owner: 'p', title: 'four' }]);
    assert.deepEqual(
      (await byOwner(a)).map((n) => n._id),
      ['n2', 'n3', 'n4'],
    );
  });

  it('does not keep a read that a write overtook', async () => {
    await a.Note.create({ _id: 'n5', owner: 'q', title: 'before' });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let loaded!: () => void;
    const read = new Promise<void>((resolve) => (loaded = resolve));
    // The read loads the old version, then waits while the write lands and is announced.
    const slow = a.cache.query(a.Note, 'n5-slow', async () => {
      const doc = await a.Note.findById('n5').lean<NoteDoc>();
      loaded();
      await gate;
      return doc;
    });
    await read;
    await a.Note.updateOne({ _id: 'n5' }, { $set: { title: 'after' } });
    release();
    assert.equal((await slow)?.title, 'before', 'the overtaken read answers what it read');
    const again = await a.cache.query(a.Note, 'n5-slow', () => a.Note.findById('n5').lean<NoteDoc>());
    assert.equal(again?.title, 'after', 'but it was not kept');
  });
});

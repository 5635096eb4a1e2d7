import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import mongoose, { Schema } from 'mongoose';
import { acquireRedisLock, releaseRedisLock } from './locks';
import { createLogger } from './logger';
import { connectDatabase, defineModels } from './mongo';
import { createRedis, type RedisClient } from './redis';

// Not @quire/testkit (it depends on this package): the test runner exports the datastore's
// URI and REDIS_URL; a unique database and key prefix keep this suite apart from others.
const MONGODB_URI = process.env.QUIRE_TEST_MONGODB_URI;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const SUFFIX = randomBytes(4).toString('hex');

interface CounterDoc {
  _id: string;
  owner: string;
  slot: string;
  n: number;
  a?: string;
  b?: string;
  c?: string;
  d?: string;
  tags?: string[];
}

const counterSchema = new Schema<CounterDoc>(
  { _id: String, owner: String, slot: String, n: { type: Number, default: 0 }, a: String, b: String, c: String, d: String, tags: [String] },
  { versionKey: false },
);
counterSchema.index({ owner: 1, slot: 1 }, { unique: true });
const models = defineModels<{ Counter: mongoose.Model<CounterDoc> }>({ Counter: [counterSchema, 'counters'] });

// Skipped when !MONGODB_URI: needs the test runner datastore
(!MONGODB_URI ? describe.skip : describe)('updates of one document never lose each other (real datastore)', () => {
  let db: mongoose.Connection;
  let redis: RedisClient;
  let Counter: mongoose.Model<CounterDoc>;

  beforeAll(async () => {
    const logger = createLogger('write-serialization-test', 'silent');
    redis = createRedis({ REDIS_URL, REDIS_PREFIX: `quire-test:${SUFFIX}:` }, logger);
    db = await connectDatabase('serialization', { MONGODB_URI, DB_PREFIX: `t${SUFFIX}_` }, logger, models.register, { redis });
    Counter = models.of(db).Counter;
  });

  afterAll(async () => {
    await db?.dropDatabase().catch(() => {});
    await db?.close();
    redis?.disconnect();
  });

  it('is on for FerretDB (whose updates are read-modify-write), off for MongoDB', async () => {
    // The engine as the server reports it (FerretDB adds its version to buildInfo), asked here
    // rather than through isFerretDb, which is under test.
    const ferretDb = typeof (await db.db!.admin().command({ buildInfo: 1 })).ferretdbVersion === 'string';
    // The test datastore is FerretDB on our machines (the launcher's choice when mongod is absent).
    if (process.env.QUIRE_TEST_FERRETDB_POSTGRES_URL) assert.ok(ferretDb, 'the test datastore runs on PostgreSQL, so it is FerretDB');
    // Hold the lock of one document (the key the plugin takes for it): a serialized update waits
    // for it, an update left to the engine does not.
    await Counter.create({ _id: 'held', owner: 'o', slot: 'held' });
    const key = `write-lock:serialization:${db.name}:counters:id:held`;
    const token = await acquireRedisLock(redis, key, { ttlMs: 10_000, waitMs: 1_000 });
    let updated = false;
    const update = Counter.updateOne({ _id: 'held' }, { $inc: { n: 1 } }).then(() => (updated = true));
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      assert.equal(updated, !ferretDb, ferretDb ? 'on FerretDB, an update ran while its document was locked' : 'on MongoDB, an update waited for a lock');
    } finally {
      await releaseRedisLock(redis, key, token);
      await update;
    }
    assert.equal((await Counter.findById('held').lean())!.n, 1);
  });

  it('ends 20 concurrent $inc of one document at exactly 20', async () => {
    await Counter.create({ _id: 'inc', owner: 'o', slot: 'inc' });
    await Promise.all(Array.from({ length: 20 }, () => Counter.updateOne({ _id: 'inc' }, { $inc: { n: 1 } })));
    assert.equal((await Counter.findById('inc').lean())!.n, 20);
  });

  it('keeps every field of concurrent updates selected by other fields than _id', async () => {
    await Counter.create({ _id: 'fields', owner: 'o', slot: 'fields' });
    const fields = ['a', 'b', 'c', 'd'] as const;
    for (let round = 0; round < 5; round++) {
      await Promise.all([
        ...fields.map((field) => Counter.findOneAndUpdate({ owner: 'o', slot: 'fields' }, { $set: { [field]: `${field}${round}` } })),
        Counter.updateOne({ owner: 'o', slot: 'fields' }, { $inc: { n: 1 }, $push: { tags: `t${round}` } }),
      ]);
      const doc = (await Counter.findById('fields').lean())!;
      for (const field of fields) assert.equal(doc[field], `${field}${round}`, `round ${round}: ${field} lost`);
      assert.equal(doc.n, round + 1);
      assert.equal(doc.tags!.length, round + 1);
    }
  });

  it('runs identical concurrent upserts one after the other (one document, every increment)', async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 10 }, () =>
        Counter.updateOne({ owner: 'o', slot: 'upsert' }, { $inc: { n: 1 }, $setOnInsert: { _id: `u${randomBytes(4).toString('hex')}` } }, { upsert: true }),
      ),
    );
    assert.deepEqual(
      results.filter((r) => r.status === 'rejected'),
      [],
    );
    const docs = await Counter.find({ owner: 'o', slot: 'upsert' }).lean();
    assert.equal(docs.length, 1);
    assert.equal(docs[0].n, 10);
  });

  it('serializes the updates inside bulkWrite with plain updates of the same documents', async () => {
    await Counter.create([
      { _id: 'bulk1', owner: 'o', slot: 'bulk1' },
      { _id: 'bulk2', owner: 'o', slot: 'bulk2' },
    ]);
    await Promise.all([
      ...Array.from({ length: 5 }, () =>
        Counter.bulkWrite([
          { updateOne: { filter: { _id: 'bulk1' }, update: { $inc: { n: 1 } } } },
          { updateOne: { filter: { owner: 'o', slot: 'bulk2' }, update: { $inc: { n: 1 } } } },
        ]),
      ),
      ...Array.from({ length: 5 }, () => Counter.updateMany({ slot: { $in: ['bulk1', 'bulk2'] } }, { $inc: { n: 1 } })),
    ]);
    const docs = await Counter.find({ _id: { $in: ['bulk1', 'bulk2'] } })
      .sort({ _id: 1 })
      .lean();
    assert.deepEqual(
      docs.map((d) => d.n),
      [10, 10],
    );
  });
});

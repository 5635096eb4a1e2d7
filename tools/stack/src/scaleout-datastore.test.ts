import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import mongoose, { Schema } from 'mongoose';
import { freePort, startFerretdbOn, type MongoHandle } from '@quire/datastore';
import { connectDatabase, createLogger, createRedis, defineModels, type Database, type RedisClient } from '@quire/runtime';

interface Doc {
  _id: string;
  n: number;
  a?: string;
  b?: string;
  tags?: string[];
}
const models = defineModels<{ Doc: mongoose.Model<Doc> }>({
  Doc: [new Schema<Doc>({ _id: String, n: { type: Number, default: 0 }, a: String, b: String, tags: [String] }, { versionKey: false }), 'docs'],
});

const POSTGRES_URL = process.env.QUIRE_TEST_FERRETDB_POSTGRES_URL;
const SUFFIX = randomBytes(4).toString('hex');

/**
 * The datastore as a cluster runs it (the chart's FerretDB Deployment): two FerretDB processes
 * over one PostgreSQL database, a replica of a service on each. FerretDB's updates read, modify
 * and write the document, so two processes updating one document at once would lose one of the
 * updates: the services' write serialization (a Redis lock per document, turned on for FerretDB
 * by itself) keeps both, whichever FerretDB each goes through.
 *
 * FerretDB 1.x reads its collections' metadata from PostgreSQL once, at its first request, and
 * then keeps it in memory: a collection or index made through one process is unknown to another
 * that had already loaded it (deploy/README.md, "FerretDB replicas"). So the second process
 * starts here once the first replica made its collections, as the chart's rollout order has it.
 */
(POSTGRES_URL ? describe : describe.skip)('two FerretDB processes over one PostgreSQL database', () => {
  let second: MongoHandle;
  let dataDir: string;
  let redis: RedisClient;
  const replicas: Database[] = [];

  beforeAll(async () => {
    const logger = createLogger('scaleout-datastore-test', 'silent');
    redis = createRedis({ REDIS_URL: process.env.REDIS_URL!, REDIS_PREFIX: `quire-test:${SUFFIX}:` }, logger);
    const connect = (uri: string) =>
      connectDatabase('replicated', { MONGODB_URI: uri, DB_PREFIX: `t${SUFFIX}_` }, logger, models.register, { redis, writeSerialization: 'auto' });
    replicas.push(await connect(process.env.QUIRE_TEST_MONGODB_URI!));
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'quire-ferretdb-'));
    second = await startFerretdbOn(POSTGRES_URL!, { dataDir, port: await freePort() });
    replicas.push(await connect(second.uri));
  });

  afterAll(async () => {
    await replicas[0]?.dropDatabase().catch(() => {});
    for (const db of replicas) await db.close();
    redis?.disconnect();
    await second?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps concurrent updates of different fields of one document made through different FerretDB processes', async () => {
    const [one, two] = replicas.map((db) => models.of(db).Doc);
    await one.create({ _id: 'shared' });
    assert.ok(await two.findById('shared').lean(), 'both processes serve the same data');
    for (let round = 0; round < 10; round++) {
      await Promise.all([
        one.updateOne({ _id: 'shared' }, { $set: { a: `a${round}` }, $inc: { n: 1 } }),
        two.updateOne({ _id: 'shared' }, { $set: { b: `b${round}` }, $inc: { n: 1 } }),
        two.findOneAndUpdate({ _id: 'shared' }, { $push: { tags: `two${round}` } }),
        one.findOneAndUpdate({ _id: 'shared' }, { $push: { tags: `one${round}` } }),
      ]);
      const doc = (await one.findById('shared').lean())!;
      assert.deepEqual(
        { a: doc.a, b: doc.b, n: doc.n, tags: doc.tags?.length },
        { a: `a${round}`, b: `b${round}`, n: 2 * (round + 1), tags: 2 * (round + 1) },
        `round ${round}: an update was lost`,
      );
    }
  });
});

import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import mongoose, { Schema } from 'mongoose';
import { createLogger } from './logger';
import { connectDatabase, defineModels } from './mongo';

// Not @quire/testkit (it depends on this package): the test runner exports the datastore's URI.
const MONGODB_URI = process.env.QUIRE_TEST_MONGODB_URI;
const SUFFIX = randomBytes(4).toString('hex');
/** How late the slow datastore's answers arrive: longer than a check of the server used to be allowed. */
const DELAY_MS = 1_000;

interface NoteDoc {
  _id: string;
  text: string;
}
const models = defineModels<{ Note: mongoose.Model<NoteDoc> }>({
  Note: [new Schema<NoteDoc>({ _id: String, text: String }, { versionKey: false }), 'notes'],
});

/**
 * A TCP relay in front of the datastore that holds each of its answers for DELAY_MS while
 * `state.slow` (in order: timers of one duration fire in the order they were set), as a datastore
 * under load does.
 */
async function slowRelay(target: { host: string; port: number }) {
  const state = { slow: false };
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on('close', () => sockets.delete(socket));
    }
    client.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (state.slow) setTimeout(() => client.writable && client.write(chunk), DELAY_MS);
      else client.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    state,
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

// Skipped when !MONGODB_URI: needs the test runner datastore
(!MONGODB_URI ? describe.skip : describe)('a datastore that answers slowly (real datastore behind a relay)', () => {
  let relay: Awaited<ReturnType<typeof slowRelay>>;
  let db: mongoose.Connection;
  let Note: mongoose.Model<NoteDoc>;

  beforeAll(async () => {
    const target = new URL(MONGODB_URI!);
    relay = await slowRelay({ host: target.hostname, port: Number(target.port || 27017) });
    target.host = `127.0.0.1:${relay.port}`;
    db = await connectDatabase(
      'slowstore',
      { MONGODB_URI: target.toString(), DB_PREFIX: `t${SUFFIX}_` },
      createLogger('mongo-test', 'silent'),
      models.register,
    );
    Note = models.of(db).Note;
  });

  afterAll(async () => {
    relay.state.slow = false;
    await db?.dropDatabase().catch(() => {});
    await db?.close();
    await relay?.close();
  });

  it('slows operations down but fails none: a late answer to a check of the server does not interrupt the operations in flight', async () => {
    await Note.create({ _id: 'kept', text: 'written before' });
    // Connections for both lanes opened beforehand: what is slowed is answers, not connecting.
    await Promise.all([0, 1, 2, 3].map(() => Note.findById('kept').lean()));
    relay.state.slow = true;
    // Longer than two heartbeats (every 2 s), each check answered a second late, with operations always in flight.
    const started = Date.now();
    const outcomes: string[] = [];
    await Promise.all(
      [0, 1].map(async (lane) => {
        for (let i = 0; Date.now() - started < 5_000; i++) {
          try {
            if (i % 2) await Note.updateOne({ _id: `lane-${lane}` }, { $set: { text: `write ${i}` } }, { upsert: true });
            else assert.equal((await Note.findById('kept').lean())?.text, 'written before');
            outcomes.push('ok');
          } catch (error) {
            outcomes.push(`${(error as Error).name}: ${(error as Error).message}`);
          }
        }
      }),
    );
    relay.state.slow = false;
    assert.ok(outcomes.length >= 4, `operations ran throughout (${outcomes.length})`);
    assert.deepEqual(
      outcomes.filter((outcome) => outcome !== 'ok'),
      [],
      'failed operations',
    );
    assert.match((await Note.findById('lane-0').lean())?.text ?? '', /^write \d+$/, 'the writes made while slow are there');
  });
});

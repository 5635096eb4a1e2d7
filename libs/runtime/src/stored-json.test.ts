import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import mongoose, { Schema } from 'mongoose';
import { z } from 'zod';
import { createLogger } from './logger';
import { connectDatabase, defineModels } from './mongo';
import { storedJson, StoredJsonError } from './stored-json';

// Not @quire/testkit (it depends on this package): the test runner exports the datastore's
// URI; a unique database keeps this suite apart from others.
const MONGODB_URI = process.env.QUIRE_TEST_MONGODB_URI;
const SUFFIX = randomBytes(4).toString('hex');

/** A model with two JSON text fields, as services declare them. */
interface WidgetDoc {
  _id: string;
  /** JSON text of the settings (free-form keys: '$' and '.' included). */
  settings: string;
  /** JSON text of the tags, or none. */
  tags?: string | null;
}

const widgetSchema = new Schema<WidgetDoc>(
  { _id: String, settings: { type: String, required: true }, tags: { type: String, default: '[]' } },
  { versionKey: false },
);
const models = defineModels<{ Widget: mongoose.Model<WidgetDoc> }>({ Widget: [widgetSchema, 'widgets'] });

const settings = storedJson('Widget.settings', z.looseObject({ version: z.number().int(), labels: z.record(z.string(), z.string()).optional() }));
const tags = storedJson('Widget.tags', z.array(z.string()), { absent: [] });
const lenient = storedJson('Widget.settings', z.record(z.string(), z.number()), { fallback: {} });

describe('storedJson: JSON text fields checked on write, parsed on read (real datastore)', () => {
  let db: mongoose.Connection;
  let Widget: mongoose.Model<WidgetDoc>;

  beforeAll(async () => {
    assert.ok(MONGODB_URI, 'QUIRE_TEST_MONGODB_URI is set by the test runner');
    db = await connectDatabase('storedjson', { MONGODB_URI, DB_PREFIX: `t${SUFFIX}_` }, createLogger('stored-json-test', 'silent'), models.register);
    Widget = models.of(db).Widget;
  });
  afterAll(async () => {
    await db?.dropDatabase().catch(() => {});
    await db?.close();
  });

  /** The field as stored, behind the model's back. */
  const rawText = async (id: string, field: keyof WidgetDoc) => ((await Widget.collection.findOne({ _id: id } as never)) as unknown as WidgetDoc)[field];

  it('stores the value as its JSON text and reads it back typed, from lean and hydrated documents alike', async () => {
    const value = { version: 2, labels: { 'a.b': 'dotted', $ref: 'dollar' }, extra: [1, 2] };
    await Widget.create({ _id: 'w1', settings: settings.write(value), tags: tags.write(['x', 'y']) });
    assert.equal(await rawText('w1', 'settings'), JSON.stringify(value), 'stored exactly as JSON.stringify writes it');

    const lean = await Widget.findById('w1').lean<WidgetDoc>();
    assert.deepEqual(settings.read(lean?.settings), value);
    assert.deepEqual(tags.read(lean?.tags), ['x', 'y']);
    const hydrated = await Widget.findById('w1');
    assert.deepEqual(settings.read(hydrated?.settings), value);

    await Widget.updateOne({ _id: 'w1' }, { $set: { settings: settings.write({ version: 3 }) } });
    assert.deepEqual(settings.read((await Widget.findById('w1').lean<WidgetDoc>())?.settings), { version: 3 });
  });

  it('reads the documents written before it as they are', async () => {
    await Widget.collection.insertOne({ _id: 'w-old', settings: '{"version":1,"note":"written by hand"}' } as never);
    const old = await Widget.findById('w-old').lean<WidgetDoc>();
    assert.deepEqual(settings.read(old?.settings), { version: 1, note: 'written by hand' });
    assert.equal(old?.tags, undefined, 'lean reads skip the default');
    assert.deepEqual(tags.read(old?.tags), [], 'an absent field reads as declared');
  });

  it('refuses to write a value its schema refuses, naming the field', () => {
    assert.throws(
      () => settings.write({ version: 1.5 }),
      (error: unknown) => error instanceof StoredJsonError && error.field === 'Widget.settings' && /Widget\.settings.*version/.test(error.message),
    );
    assert.throws(() => tags.write(['x', 3 as unknown as string]), /stored JSON Widget\.tags: refused a value that does not fit its schema \(1: /);
    assert.throws(() => storedJson('Widget.any', z.unknown()).write(undefined), /Widget\.any: refused a value that has no JSON text/);
    assert.throws(() => storedJson('Widget.tags', z.array(z.string()), { absent: [1] as never }), /Widget\.tags: refused/, 'a declared value is checked too');
  });

  it('answers stored text that does not read with an error naming the field, or the fallback the field declares', async () => {
    await Widget.collection.insertMany([
      { _id: 'w-not-json', settings: '{"version":' },
      { _id: 'w-misfit', settings: '{"version":"two"}' },
    ] as never);
    const notJson = (await Widget.findById('w-not-json').lean<WidgetDoc>())?.settings;
    const misfit = (await Widget.findById('w-misfit').lean<WidgetDoc>())?.settings;
    assert.throws(() => settings.read(notJson), /^StoredJsonError: stored JSON Widget\.settings: the stored text is not JSON$/);
    assert.throws(() => settings.read(misfit), /stored JSON Widget\.settings: the stored value does not fit its schema \(version: /);
    assert.throws(() => settings.read(null), /stored JSON Widget\.settings: absent/);
    assert.throws(() => tags.read('{}'), /Widget\.tags/, 'absent is not a fallback for text that does not read');

    assert.deepEqual(lenient.read(notJson), {});
    assert.deepEqual(lenient.read(misfit), {});
    assert.deepEqual(lenient.read(undefined), {});
    assert.deepEqual(lenient.read('{"a":1}'), { a: 1 });
  });

  it('writes what the schema takes in and reads what it gives out', () => {
    const counts = storedJson(
      'Widget.counts',
      z.record(z.string(), z.number()).transform((record) => new Map(Object.entries(record))),
      { fallback: {} },
    );
    const text = counts.write({ a: 1, b: 2 });
    assert.equal(text, '{"a":1,"b":2}');
    assert.deepEqual(
      counts.read(text),
      new Map([
        ['a', 1],
        ['b', 2],
      ]),
    );
    assert.deepEqual(counts.read('[]'), new Map(), 'the fallback reads through the schema too');
  });

  it('hands out a fresh copy of a declared value: a caller changing it changes nothing else', () => {
    const first = tags.read(null);
    first.push('changed');
    assert.deepEqual(tags.read(null), []);
    const fallen = lenient.read('oops');
    fallen.a = 1;
    assert.deepEqual(lenient.read('oops'), {});
  });
});

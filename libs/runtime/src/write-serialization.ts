import { createHash } from 'node:crypto';
import mongoose from 'mongoose';
import { acquireRedisLock, releaseRedisLock, type LockLogger } from './locks';
import type { RedisClient } from './redis';

/*
 * No acknowledged write is lost, on any engine (design.md §5).
 *
 * FerretDB 1.x applies every update as read → modify in Go → write back, with nothing
 * spanning the read and the write: two concurrent updates of different fields of one
 * document can both "succeed" and one of them is gone; twenty concurrent `$inc` can end at
 * one. So on FerretDB every update of a document runs while holding a short Redis lock on
 * that document (collection + _id): updates of one document happen one after the other,
 * updates of different documents do not wait for each other. On MongoDB, whose updates are
 * atomic per document, nothing is added.
 *
 * This is the one mechanism: it is installed on every schema a service declares (defineModels)
 * and covers updateOne, updateMany, findOneAndUpdate, replaceOne, findOneAndReplace and the
 * update operations of bulkWrite. Features keep their own locks only where they read several
 * documents and decide (a merge, a counter that must match a list), never for a plain update.
 */

/** Which documents an update may touch: the locks it needs. */
type QueryLike = mongoose.Query<unknown, unknown> & { op?: string };

const QUERY_OPS: mongoose.MongooseQueryMiddleware[] = ['updateOne', 'updateMany', 'findOneAndUpdate', 'replaceOne', 'findOneAndReplace'];
const SINGLE_OPS = new Set<string>(['updateOne', 'findOneAndUpdate', 'replaceOne', 'findOneAndReplace']);

/** How long a lock lives if its holder dies (an update takes milliseconds). */
const LOCK_TTL_MS = 10_000;
/** How long an update waits for a busy document before it gives up (a 503: retry). */
const LOCK_WAIT_MS = 5_000;

export type WriteSerializationMode = 'auto' | 'always' | 'off';

interface Serializer {
  redis: RedisClient;
  prefix: string;
  logger?: LockLogger;
}

const serializers = new WeakMap<mongoose.Connection, Serializer>();
const installed = new WeakSet<mongoose.Schema>();
const held = new WeakMap<object, () => Promise<void>>();

/** True when the server behind the connection is FerretDB (whose updates need serializing). */
export async function isFerretDb(connection: mongoose.Connection): Promise<boolean> {
  const info = await connection.db!.admin().command({ buildInfo: 1 });
  return typeof info.ferretdbVersion === 'string';
}

/**
 * Turns serialization on for this connection when its engine needs it (`auto`), always, or
 * never. Returns whether it is on. Call once the connection is open, before serving.
 */
export async function enableWriteSerialization(
  connection: mongoose.Connection,
  options: { redis: RedisClient; service: string; mode?: WriteSerializationMode; logger?: LockLogger },
): Promise<boolean> {
  const mode = options.mode ?? 'auto';
  const on = mode === 'always' || (mode === 'auto' && (await isFerretDb(connection)));
  if (on) serializers.set(connection, { redis: options.redis, prefix: `write-lock:${options.service}:${connection.name}:`, logger: options.logger });
  else serializers.delete(connection);
  return on;
}

/** Installs the hooks on a schema (once); they act only on connections serialization is on for. */
export function serializeWrites(schema: mongoose.Schema): void {
  if (installed.has(schema)) return;
  installed.add(schema);
  schema.pre(QUERY_OPS, { document: false, query: true }, async function (this: QueryLike) {
    await lockQuery(this);
  });
  schema.post(QUERY_OPS, { document: false, query: true }, async function (this: QueryLike) {
    await unlock(this);
  });
  schema.post(QUERY_OPS, { document: false, query: true, errorHandler: true }, async function (this: QueryLike, error: Error) {
    await unlock(this);
    throw error;
  });
  // bulkWrite has no per-call hooks that see both its operations and its end: wrap the static.
  const bulkWrite = mongoose.Model.bulkWrite;
  schema.static('bulkWrite', async function (this: mongoose.Model<unknown>, ops: mongoose.AnyBulkWriteOperation[], options?: unknown) {
    const release = await lockBulk(this, ops);
    try {
      return await (bulkWrite as (...args: unknown[]) => Promise<unknown>).call(this, ops, options);
    } finally {
      await release();
    }
  });
}

async function lockQuery(query: QueryLike): Promise<void> {
  const serializer = serializers.get(query.model.db);
  if (!serializer) return;
  const options = query.getOptions() as { upsert?: boolean; sort?: Record<string, 1 | -1> };
  const target: Target = {
    filter: query.getFilter() as Record<string, unknown>,
    single: SINGLE_OPS.has(query.op ?? ''),
    upsert: !!options.upsert,
    sort: options.sort,
  };
  const { release, narrowTo } = await lockTargets(serializer, query.model, [target]);
  held.set(query, release);
  // A single update is narrowed to the document it locked, so it cannot update another.
  if (narrowTo[0] !== undefined) query.where({ _id: narrowTo[0] });
}

async function unlock(query: QueryLike): Promise<void> {
  const release = held.get(query);
  held.delete(query);
  await release?.();
}

async function lockBulk(model: mongoose.Model<unknown>, ops: mongoose.AnyBulkWriteOperation[]): Promise<() => Promise<void>> {
  const serializer = serializers.get(model.db);
  if (!serializer) return async () => {};
  const targets: Target[] = [];
  for (const op of ops) {
    const update = ('updateOne' in op && op.updateOne) || ('replaceOne' in op && op.replaceOne) || undefined;
    const many = 'updateMany' in op ? op.updateMany : undefined;
    const spec = (update ?? many) as { filter: Record<string, unknown>; upsert?: boolean } | undefined;
    // Inserts and deletes read nothing to write back: nothing to serialize.
    if (spec) targets.push({ filter: spec.filter, single: !many, upsert: !!spec.upsert });
  }
  return (await lockTargets(serializer, model, targets)).release;
}

interface Target {
  filter: Record<string, unknown>;
  single: boolean;
  upsert: boolean;
  sort?: Record<string, 1 | -1>;
}

/**
 * Locks every document the targets may write. A filter naming one `_id` locks that id. Any
 * other filter is resolved to the ids it matches, and those are locked. An upsert first locks
 * its filter (so identical concurrent upserts run one after the other) and resolves its ids
 * only once it holds that lock, so it also locks the document an earlier twin just created.
 * Filter keys are always taken before id keys, each group in sorted order: no two writers can
 * wait on each other in a cycle.
 */
async function lockTargets(
  serializer: Serializer,
  model: mongoose.Model<unknown>,
  targets: Target[],
): Promise<{ release: () => Promise<void>; narrowTo: unknown[] }> {
  const releases: Array<() => Promise<void>> = [];
  const release = async () => {
    await Promise.all(releases.splice(0).map((free) => free()));
  };
  try {
    const filterKeys = targets
      .filter((t) => t.upsert && exactId(t.filter?._id) === undefined)
      .map((t) => `filter:${createHash('sha256').update(stableJson(t.filter)).digest('base64url')}`);
    releases.push(await lockAll(serializer, model, filterKeys));
    const narrowTo: unknown[] = [];
    const idKeys: string[] = [];
    for (const target of targets) {
      const id = exactId(target.filter?._id);
      if (id !== undefined) {
        idKeys.push(`id:${id}`);
        narrowTo.push(undefined);
        continue;
      }
      let finder = model.find(target.filter, { _id: 1 }).lean<Array<{ _id: unknown }>>();
      if (target.single) finder = finder.sort(target.sort ?? {}).limit(1);
      const ids = (await finder).map((doc) => doc._id);
      idKeys.push(...ids.map((value) => `id:${String(value)}`));
      // An upsert keeps its own filter: narrowed to an _id, a document deleted meanwhile
      // would come back with that id instead of a fresh one.
      narrowTo.push(target.single && !target.upsert ? ids[0] : undefined);
    }
    releases.push(await lockAll(serializer, model, idKeys));
    return { release, narrowTo };
  } catch (error) {
    await release();
    throw error;
  }
}

/** The id when the filter names exactly one document by `_id` (a scalar, not an operator). */
function exactId(value: unknown): string | undefined {
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (value && typeof value === 'object' && !Array.isArray(value) && typeof (value as { toHexString?: unknown }).toHexString === 'function') {
    return (value as { toHexString(): string }).toHexString();
  }
  return undefined;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'undefined';
}

/**
 * Takes every key in one fixed order (two writers never wait on each other in a cycle) and
 * returns what releases them. A lock still busy after LOCK_WAIT_MS is a LockBusyError (503).
 */
async function lockAll(serializer: Serializer, model: mongoose.Model<unknown>, keys: string[]): Promise<() => Promise<void>> {
  if (keys.length === 0) return async () => {};
  const collection = model.collection.collectionName;
  const taken: Array<{ key: string; token: string }> = [];
  const release = async () => {
    await Promise.all(taken.map(({ key, token }) => releaseRedisLock(serializer.redis, key, token, serializer.logger)));
  };
  try {
    for (const key of [...new Set(keys)].sort()) {
      const full = `${serializer.prefix}${collection}:${key}`;
      taken.push({
        key: full,
        token: await acquireRedisLock(serializer.redis, full, { ttlMs: LOCK_TTL_MS, waitMs: LOCK_WAIT_MS, initialPauseMs: 2, maxPauseMs: 50 }),
      });
    }
  } catch (error) {
    await release();
    throw error;
  }
  return release;
}

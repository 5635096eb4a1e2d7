import { randomUUID } from 'node:crypto';
import type mongoose from 'mongoose';
import type { BaseConfig } from './config';
import type { Logger } from './logger';
import { InvalidatedCache, publishInvalidation, type CacheInvalidation } from './membership-cache';
import { databaseUri } from './mongo';
import type { RedisClient } from './redis';

/*
 * Documents the request path reads again and again (a space, a caller's grants), kept in
 * process and dropped by the writes that change them, not by time alone.
 *
 * Every model a service declares (defineModels) announces its writes: after an update, replace
 * or delete, the ids it names by `_id` (or, when its filter names none, the whole collection)
 * are dropped from this process's cache at once and then broadcast on the same Redis channel as
 * identity's invalidations, so every other replica drops them too. Query results (`query`) are
 * dropped by any write to their collection, inserts included (the cache never keeps an absent
 * document, so by id an insert changes nothing). What InvalidatedCache guarantees holds here too: a load that a write
 * overtakes is not kept, and a replica whose subscription is down serves nothing from the cache
 * and starts empty when it is back. Another replica may serve the previous version for the
 * moment the broadcast takes; the writer's own process never does.
 */

const WRITE_QUERIES: mongoose.MongooseQueryMiddleware[] = [
  'updateOne',
  'updateMany',
  'findOneAndUpdate',
  'replaceOne',
  'findOneAndReplace',
  'deleteOne',
  'deleteMany',
  'findOneAndDelete',
];

// Any model of any service: the cache works on ids and raw documents, whatever their schema.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyModel = mongoose.Model<any>;

interface Announcer {
  redis: RedisClient;
  logger?: Logger;
}

const announcers = new WeakMap<mongoose.Connection, Announcer>();
const installed = new WeakSet<mongoose.Schema>();
const caches = new WeakMap<RedisClient, DocumentCache>();

/** The collection as invalidations name it: `<database>.<collection>`. */
function collectionOf(model: AnyModel): string {
  return `${model.db.name}.${model.collection.collectionName}`;
}

/** How another service's announcements name one of its collections (its database: databaseUri). */
export function serviceCollection(service: string, collection: string, config: Pick<BaseConfig, 'MONGODB_URI' | 'DB_PREFIX'>): string {
  return `${new URL(databaseUri(service, config)).pathname.slice(1)}.${collection}`;
}

const idKey = (collection: string, id: string) => `${collection}\nid\n${id}`;
const queryPrefix = (collection: string) => `${collection}\nq\n`;

function selectDocuments(invalidation: CacheInvalidation): { keys?: string[]; prefixes?: string[] } | undefined {
  if (invalidation.type !== 'documents') return undefined;
  const { collection, ids } = invalidation;
  if (!ids) return { prefixes: [`${collection}\n`] };
  return { keys: ids.map((id) => idKey(collection, id)), prefixes: [queryPrefix(collection)] };
}

/** Documents by id and query results of one service process (see above). */
export class DocumentCache {
  private readonly cache: InvalidatedCache<{ value: unknown }>;
  /** Marks this process's broadcasts: it applied them already, and an echo would only refuse loads in flight. */
  readonly origin = randomUUID();

  /** Use documentCacheOf: the writes of a connection drop entries of the cache of its Redis client. */
  constructor(redis: RedisClient, options: { max?: number; ttlMs?: number; logger?: Logger } = {}) {
    const select = (invalidation: CacheInvalidation) =>
      invalidation.type === 'documents' && invalidation.origin === this.origin ? undefined : selectDocuments(invalidation);
    this.cache = new InvalidatedCache(redis, { name: 'documents', max: options.max ?? 20_000, ttlMs: options.ttlMs ?? 60_000, select, logger: options.logger });
    caches.set(redis, this);
  }

  /** Whether entries are served (the subscription is up). */
  get active(): boolean {
    return this.cache.active;
  }

  /** `model.findById(id)`, lean; a copy of the cached document when there is one. */
  async findById<T>(model: AnyModel, id: string): Promise<T | null> {
    const key = idKey(collectionOf(model), id);
    const cached = this.cache.lookup(key);
    if (cached) return structuredClone(cached.value) as T;
    const mark = this.cache.mark();
    const doc = await model.findById(id).lean<T>();
    if (doc) this.cache.keep(key, { value: structuredClone(doc) }, mark);
    return doc;
  }

  /**
   * `model.findById` of each of `ids`, lean, in their order with the absent left out: the
   * cached ones from the cache, the others in one `$in` read (not one read each).
   */
  async findByIds<T extends { _id: unknown }>(model: AnyModel, ids: string[]): Promise<T[]> {
    const collection = collectionOf(model);
    const found = new Map<string, T>();
    const missing: string[] = [];
    for (const id of ids) {
      const cached = this.cache.lookup(idKey(collection, id));
      if (cached) found.set(id, structuredClone(cached.value) as T);
      else missing.push(id);
    }
    if (missing.length) {
      const mark = this.cache.mark();
      const docs = await model.find({ _id: { $in: missing } }).lean<T[]>();
      for (const doc of docs) {
        const id = String(doc._id);
        this.cache.keep(idKey(collection, id), { value: structuredClone(doc) }, mark);
        found.set(id, doc);
      }
    }
    return ids.flatMap((id) => found.get(id) ?? []);
  }

  /** The result of `load` (a read of `model`'s collection identified by `key`), until that collection is written. */
  async query<T>(model: AnyModel, key: string, load: () => Promise<T>): Promise<T> {
    const full = `${queryPrefix(collectionOf(model))}${key}`;
    const cached = this.cache.lookup(full);
    if (cached) return structuredClone(cached.value) as T;
    const mark = this.cache.mark();
    const value = await load();
    this.cache.keep(full, { value: structuredClone(value) }, mark);
    return value;
  }

  /** Drops what a write names, in this process. */
  invalidate(invalidation: CacheInvalidation): void {
    this.cache.invalidate(invalidation);
  }

  close(): void {
    this.cache.close();
  }
}

/** The document cache of the service that owns `redis` (its one connection). */
export function documentCacheOf(redis: RedisClient, logger?: Logger): DocumentCache {
  return caches.get(redis) ?? new DocumentCache(redis, { logger });
}

/** Makes the models of `connection` announce their writes on `redis` (connectDatabase does). */
export function enableWriteAnnouncements(connection: mongoose.Connection, redis: RedisClient, logger?: Logger): void {
  announcers.set(connection, { redis, logger });
}

/** Installs the hooks that announce a schema's writes (once); they act on connections announcements are on for. */
export function announceWrites(schema: mongoose.Schema): void {
  if (installed.has(schema)) return;
  installed.add(schema);
  const afterQuery = async function (this: mongoose.Query<unknown, unknown>) {
    await announce(this.model, idsOf(this.getFilter()));
  };
  schema.post(WRITE_QUERIES, { document: false, query: true }, afterQuery);
  // A write that failed half way may still have changed documents.
  schema.post(WRITE_QUERIES, { document: false, query: true, errorHandler: true }, async function (this: mongoose.Query<unknown, unknown>, error: Error) {
    await announce(this.model, idsOf(this.getFilter()));
    throw error;
  });
  schema.post('save', async function (doc: mongoose.Document) {
    await announce(doc.constructor as AnyModel, [String(doc._id)]);
  });
  schema.post('deleteOne', { document: true, query: false }, async function (doc: mongoose.Document) {
    await announce(doc.constructor as AnyModel, [String(doc._id)]);
  });
  schema.post('insertMany', async function (this: AnyModel, docs: unknown) {
    await announce(
      this,
      (docs as Array<{ _id: unknown }>).map((doc) => String(doc._id)),
    );
  });
  schema.post('bulkWrite', async function (this: AnyModel) {
    await announce(this, undefined);
  });
}

/** The ids a filter names by `_id` (a value or `$in` of values), else undefined: any document. */
function idsOf(filter: Record<string, unknown>): string[] | undefined {
  const id = filter?._id;
  if (typeof id === 'string' || typeof id === 'number') return [String(id)];
  if (id && typeof id === 'object' && Array.isArray((id as { $in?: unknown }).$in)) {
    const values = (id as { $in: unknown[] }).$in;
    if (values.every((value) => typeof value === 'string' || typeof value === 'number')) return values.map(String);
  }
  return undefined;
}

/**
 * Drops the written documents here, then tells the other replicas. A broadcast that fails is
 * logged, not thrown: the write stands, and when Redis itself is down every replica's
 * subscription is down too, so they serve nothing cached and start empty once it is back.
 */
async function announce(model: AnyModel, ids: string[] | undefined): Promise<void> {
  const announcer = announcers.get(model.db);
  if (!announcer) return;
  const invalidation: CacheInvalidation = { type: 'documents', collection: collectionOf(model), ...(ids ? { ids } : {}) };
  const local = caches.get(announcer.redis);
  local?.invalidate(invalidation);
  await publishInvalidation(announcer.redis, { ...invalidation, origin: local?.origin }).catch((error: Error) =>
    announcer.logger?.warn({ err: error.message, collection: invalidation.collection }, 'could not broadcast a cache invalidation'),
  );
}

import { LRUCache } from 'lru-cache';
import type { identity } from '@quire/proto';
import { reachFromProto, type InstallationReach } from './installation-reach';
import type { Logger } from './logger';
import type { RedisClient } from './redis';
import { roleFromProto, type Role } from './roles';

/*
 * In-process caches of identity's answers on the request path (a member's standing in an
 * organization, a token's principal), dropped by identity's events rather than by time alone.
 *
 * Identity publishes an invalidation on a Redis pub/sub channel under the deployment's key
 * prefix after every write that changes an answer, before it replies. Pub/sub is a broadcast:
 * every replica of every service receives every message (a consumer group would hand each
 * message to one replica only). A replica whose subscription is down may miss messages, so
 * while it is down the cache is bypassed, and once it is back the cache starts empty. A load
 * that an invalidation overtakes is returned to its request but not kept. The time bound is
 * only a safety net.
 */

/** What identity announces: these members' standing (or every member's), or a token, changed. */
export type CacheInvalidation =
  | { type: 'membership'; organizationId: string; /** absent: every member of the organization */ userIds?: string[] }
  | { type: 'token'; tokenHash: string }
  /** Documents of a service's collection were written (`collection` is `<database>.<collection>`); absent ids: any of them. */
  | { type: 'documents'; collection: string; ids?: string[]; /** the DocumentCache of the writer's process */ origin?: string };

const CHANNEL = 'cache-invalidation';

/** The channel, under the connection's key prefix (ioredis prefixes keys, never channel names). */
export function invalidationChannel(redis: RedisClient): string {
  return `${redis.options.keyPrefix ?? ''}${CHANNEL}`;
}

/** Tells every cache of every replica to drop what `invalidation` names. */
export async function publishInvalidation(redis: RedisClient, invalidation: CacheInvalidation): Promise<void> {
  await redis.publish(invalidationChannel(redis), JSON.stringify(invalidation));
}

/**
 * Which entries of one cache a message drops: some keys, every key under some prefixes, every
 * entry kept under some tags (InvalidatedCache.keep), or none.
 */
type Selector = (invalidation: CacheInvalidation) => { keys?: string[]; prefixes?: string[]; tags?: string[] } | undefined;

/**
 * For a cache keyed by document id: the documents of `collection` an announcement names (every
 * one when it names none). `collection` as announcements name it (document-cache.ts: `<database>.<collection>`).
 */
export function byDocumentIds(collection: string): Selector {
  return (invalidation) =>
    invalidation.type === 'documents' && invalidation.collection === collection
      ? invalidation.ids
        ? { keys: invalidation.ids }
        : { prefixes: [''] }
      : undefined;
}

/** The tag of one document (`collection` as announcements name it): what an entry made from it is kept under. */
export const documentTag = (collection: string, id: string): string => `${collection}:${id}`;

/**
 * For a cache whose entries are kept under the tags of the documents they were made from
 * (documentTag): the documents an announcement names, of whatever collection; an announcement
 * naming no ids drops every entry.
 */
export function byDocumentTags(): Selector {
  return (invalidation) =>
    invalidation.type === 'documents'
      ? invalidation.ids
        ? { tags: invalidation.ids.map((id) => documentTag(invalidation.collection, id)) }
        : { prefixes: [''] }
      : undefined;
}

/** How long a cache remembers that a tag was dropped (to refuse loads that began before). */
const TAG_DROPS_KEPT_MS = 60_000;

/**
 * A bounded LRU of values that identity's invalidations drop, on its own subscriber connection
 * (a duplicate of `redis`), closed with `redis`.
 */
export class InvalidatedCache<V extends object> {
  private readonly entries: LRUCache<string, V>;
  /** Bumped by every invalidation and every reset: a load that spans a bump is not kept. */
  private generation = 0;
  /** The generation of the last drop by keys or prefixes (or reset): a tagged load that spans it is not kept either. */
  private wideDrop = 0;
  /** When each recently dropped tag was dropped (generation and time), to refuse tagged loads that began before. */
  private readonly tagDrops = new Map<string, { generation: number; at: number }>();
  /** The keys kept under each tag, and the tags of each key kept under some. */
  private readonly tagged = new Map<string, Set<string>>();
  private readonly tagsOf = new Map<string, readonly string[]>();
  /** True while subscribed: only then are entries served and kept. */
  private live = false;
  private closed = false;
  private readonly subscriber: RedisClient;

  constructor(
    redis: RedisClient,
    private readonly options: {
      name: string;
      max: number;
      ttlMs: number;
      select: Selector;
      logger?: Logger;
      /** Told the keys an invalidation dropped (that the cache held), e.g. to read them again ahead of the next caller. */
      onDropped?: (keys: string[]) => void;
      /**
       * For tagged entries loaded from another process's cache, which hears of a drop a moment
       * after this one: a value under a tag dropped less than this long ago is not kept (it may
       * have been made before its source dropped the tag). 0 by default.
       */
      settleMs?: number;
    },
  ) {
    this.entries = new LRUCache<string, V>({
      max: options.max,
      ttl: options.ttlMs,
      // An entry that goes (dropped, replaced, evicted) leaves the index of its tags.
      dispose: (_value, key) => {
        for (const tag of this.tagsOf.get(key) ?? []) {
          const keys = this.tagged.get(tag);
          keys?.delete(key);
          if (keys?.size === 0) this.tagged.delete(tag);
        }
        this.tagsOf.delete(key);
      },
    });
    const channel = invalidationChannel(redis);
    // Named, so that operators (and tests) can tell the subscription in CLIENT LIST (names allow no spaces).
    const connectionName = `${channel}:${options.name}`.replace(/[^\w:.-]/g, '_');
    this.subscriber = redis.duplicate({ autoResubscribe: false, enableOfflineQueue: false, enableAutoPipelining: false, connectionName });
    this.subscriber.on('message', (from: string, message: string) => from === channel && this.apply(message));
    // Every (re)connection subscribes anew and starts from an empty cache: messages published
    // while the connection was down are lost.
    let reported = false;
    this.subscriber.on('ready', () => {
      this.subscriber.subscribe(channel).then(
        () => {
          this.reset();
          this.live = true;
          reported = false;
        },
        (error: Error) => options.logger?.warn({ err: error.message, cache: options.name }, 'cache invalidation subscription failed'),
      );
    });
    // Every drop of the connection comes with a 'close' (errors are followed by one).
    this.subscriber.on('close', () => this.reset());
    this.subscriber.on('error', (error: Error) => {
      if (!reported) options.logger?.warn({ err: error.message, cache: options.name }, 'cache invalidation connection error');
      reported = true;
    });
    redis.once('end', () => this.close());
  }

  /** Whether entries are served (the subscription is up). */
  get active(): boolean {
    return this.live;
  }

  /** The cached value, if the cache is live and holds one. */
  lookup(key: string): V | undefined {
    return this.live ? this.entries.get(key) : undefined;
  }

  /** A mark to take before loading: `keep` stores only if nothing was invalidated since. */
  mark(): number {
    return this.generation;
  }

  /**
   * Stores a value loaded since `mark`; false (nothing stored) when an invalidation came in
   * between. Under `tags`, only the invalidations of those tags (or of everything) count, and
   * those of the last `settleMs` too; the value is dropped by any invalidation of one of them.
   */
  keep(key: string, value: V, mark: number, tags?: readonly string[]): boolean {
    if (tags) {
      if (this.wideDrop > mark || tags.some((tag) => this.droppedSince(tag, mark))) return false;
    } else if (mark !== this.generation) return false;
    if (!this.live) return true;
    this.entries.set(key, value);
    if (!tags) return true;
    this.tagsOf.set(key, tags);
    for (const tag of tags) {
      let keys = this.tagged.get(tag);
      if (!keys) this.tagged.set(tag, (keys = new Set()));
      keys.add(key);
    }
    return true;
  }

  private droppedSince(tag: string, mark: number): boolean {
    const dropped = this.tagDrops.get(tag);
    return dropped !== undefined && (dropped.generation > mark || performance.now() - dropped.at < (this.options.settleMs ?? 0));
  }

  /** The cached value, else `load()`'s, kept for the next callers. */
  async get(key: string, load: () => Promise<V>): Promise<V> {
    const cached = this.lookup(key);
    if (cached) return cached;
    const mark = this.mark();
    const value = await load();
    this.keep(key, value, mark);
    return value;
  }

  /** Drops every entry (loads in flight are not kept either). */
  clear(): void {
    this.wideDrop = ++this.generation;
    this.entries.clear();
  }

  /** Stops listening; the cache is bypassed from then on. */
  close(): void {
    this.reset();
    // Once: closed by its owner, then again when the main connection ends, a second disconnect
    // of the ended subscriber left ioredis's 2 s force-close timer holding the process open.
    if (this.closed) return;
    this.closed = true;
    this.subscriber.disconnect();
  }

  private reset(): void {
    this.live = false;
    this.clear();
  }

  /** Drops what `invalidation` names, at once (the writer's own process does not wait for the broadcast). */
  invalidate(invalidation: CacheInvalidation): void {
    this.drop(this.options.select(invalidation));
  }

  private apply(message: string): void {
    let selected: ReturnType<Selector>;
    try {
      selected = this.options.select(JSON.parse(message) as CacheInvalidation);
    } catch {
      // Unreadable: drop everything rather than guess.
      selected = { prefixes: [''] };
    }
    this.drop(selected);
  }

  private drop(selected: ReturnType<Selector>): void {
    if (!selected) return;
    this.generation++;
    if (selected.keys || selected.prefixes) this.wideDrop = this.generation;
    const dropped: string[] = [];
    for (const key of selected.keys ?? []) if (this.entries.delete(key)) dropped.push(key);
    if (selected.tags) {
      const at = performance.now();
      for (const tag of selected.tags) {
        // Moved to the end, so that the map stays in the order of the drops.
        this.tagDrops.delete(tag);
        this.tagDrops.set(tag, { generation: this.generation, at });
        for (const key of [...(this.tagged.get(tag) ?? [])]) if (this.entries.delete(key)) dropped.push(key);
      }
      // Forgotten once no load can still be under way from before them.
      for (const [tag, { at: then }] of this.tagDrops) {
        if (at - then < TAG_DROPS_KEPT_MS) break;
        this.tagDrops.delete(tag);
      }
    }
    const prefixes = selected.prefixes ?? [];
    if (prefixes.length > 0)
      for (const key of [...this.entries.keys()])
        if (prefixes.some((prefix) => key.startsWith(prefix))) {
          this.entries.delete(key);
          dropped.push(key);
        }
    if (dropped.length) this.options.onDropped?.(dropped);
  }
}

// ---- memberships ----------------------------------------------------------------------------

/** identity's GetMembership answer, as the request path needs it (frozen: shared by requests). */
export interface CachedMembership {
  member: boolean;
  role: Role | null;
  disabled: boolean;
  teamIds: readonly string[];
  /** Set for an integration installation's user: the spaces and sites it may act on. */
  installationReach?: InstallationReach;
}

export function membershipFromProto(
  membership: (Pick<identity.Membership, 'member' | 'role' | 'disabled' | 'teamIds'> & Partial<Pick<identity.Membership, 'installationReach'>>) | undefined,
): CachedMembership {
  if (!membership) return NOT_A_MEMBER;
  const installationReach = reachFromProto(membership.installationReach);
  return Object.freeze({
    member: membership.member,
    role: roleFromProto(membership.role),
    disabled: membership.disabled,
    teamIds: Object.freeze([...membership.teamIds]),
    ...(installationReach ? { installationReach } : {}),
  });
}

const NOT_A_MEMBER: CachedMembership = Object.freeze({ member: false, role: null, disabled: false, teamIds: Object.freeze([]) });

const membershipKey = (organizationId: string, userId: string) => `${organizationId}\n${userId}`;

const selectMemberships: Selector = (invalidation) => {
  if (invalidation.type !== 'membership') return undefined;
  if (!invalidation.userIds) return { prefixes: [`${invalidation.organizationId}\n`] };
  return { keys: invalidation.userIds.map((userId) => membershipKey(invalidation.organizationId, userId)) };
};

/** Memberships by organization and user, for one service process. */
export class MembershipCache {
  private readonly cache: InvalidatedCache<CachedMembership>;

  constructor(redis: RedisClient, options: { max?: number; ttlMs?: number; logger?: Logger } = {}) {
    this.cache = new InvalidatedCache(redis, {
      name: 'memberships',
      max: options.max ?? 10_000,
      ttlMs: options.ttlMs ?? 60_000,
      select: selectMemberships,
      logger: options.logger,
    });
  }

  /** Whether entries are served (the subscription is up). */
  get active(): boolean {
    return this.cache.active;
  }

  /** The user's membership in the organization: cached, else `load()`'s answer. */
  get(organizationId: string, userId: string, load: () => Promise<CachedMembership>): Promise<CachedMembership> {
    return this.cache.get(membershipKey(organizationId, userId), load);
  }

  /**
   * The user's memberships in several organizations: the cached ones, and the others in one
   * `load(missing)` (organizations it leaves out are not memberships, and are cached as such).
   */
  async getMany(
    userId: string,
    organizationIds: readonly string[],
    load: (missing: string[]) => Promise<Map<string, CachedMembership>>,
  ): Promise<Map<string, CachedMembership>> {
    const result = new Map<string, CachedMembership>();
    const missing: string[] = [];
    for (const organizationId of new Set(organizationIds)) {
      const cached = this.cache.lookup(membershipKey(organizationId, userId));
      if (cached) result.set(organizationId, cached);
      else missing.push(organizationId);
    }
    if (missing.length === 0) return result;
    const mark = this.cache.mark();
    const loaded = await load(missing);
    for (const organizationId of missing) {
      const membership = loaded.get(organizationId) ?? NOT_A_MEMBER;
      this.cache.keep(membershipKey(organizationId, userId), membership, mark);
      result.set(organizationId, membership);
    }
    return result;
  }

  /** Drops every entry: the next request of each member asks identity again. */
  clear(): void {
    this.cache.clear();
  }

  close(): void {
    this.cache.close();
  }
}

const perConnection = new WeakMap<RedisClient, MembershipCache>();

/**
 * The membership cache of the service that owns `redis` (its one connection): every domain
 * function reaches the same cache through its context, and it closes with that connection.
 */
export function membershipCacheOf(redis: RedisClient, logger?: Logger): MembershipCache {
  let cache = perConnection.get(redis);
  if (!cache) perConnection.set(redis, (cache = new MembershipCache(redis, { logger })));
  return cache;
}

// ---- tokens ---------------------------------------------------------------------------------

const selectTokens: Selector = (invalidation) => (invalidation.type === 'token' ? { keys: [invalidation.tokenHash] } : undefined);

/** Resolved tokens by hash (the gateway's first layer, before Redis and identity). */
export function createTokenCache<V extends object>(redis: RedisClient, options: { ttlMs: number; max?: number; logger?: Logger }): InvalidatedCache<V> {
  return new InvalidatedCache<V>(redis, { name: 'tokens', max: options.max ?? 10_000, ttlMs: options.ttlMs, select: selectTokens, logger: options.logger });
}

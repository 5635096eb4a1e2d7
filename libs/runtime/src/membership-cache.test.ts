import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from '@jest/globals';
import { createLogger } from './logger';
import {
  byDocumentTags,
  createTokenCache,
  documentTag,
  InvalidatedCache,
  invalidationChannel,
  MembershipCache,
  publishInvalidation,
  type CacheInvalidation,
  type CachedMembership,
} from './membership-cache';
import { createRedis, type RedisClient } from './redis';

// Not @quire/testkit (it depends on this package): the runner exports REDIS_URL, and a unique
// prefix keeps this suite's channel apart from every other stack sharing the server.
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PREFIX = `quire-test:${randomBytes(5).toString('hex')}:`;
const logger = createLogger('membership-cache-test', 'silent');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
async function until(what: string, condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(5);
  }
}

const membership = (role: CachedMembership['role'], teamIds: string[] = []): CachedMembership => ({ member: true, role, disabled: false, teamIds });

describe('MembershipCache on a real Redis', () => {
  let service: RedisClient;
  let identity: RedisClient;
  let cache: MembershipCache;
  let loads: number;
  const loader = (value: CachedMembership) => async () => {
    loads++;
    return value;
  };

  beforeAll(async () => {
    service = createRedis({ REDIS_URL, REDIS_PREFIX: PREFIX }, logger);
    identity = createRedis({ REDIS_URL, REDIS_PREFIX: PREFIX }, logger);
    cache = new MembershipCache(service, { logger });
    await until('the subscription', () => cacheIsLive(cache));
  });
  afterAll(() => {
    identity.disconnect();
    service.disconnect();
  });

  // A value the cache serves without calling its loader.
  const cached = async (organizationId: string, userId: string) => {
    const before = loads;
    const value = await cache.get(organizationId, userId, loader(membership('read')));
    return loads === before ? value : undefined;
  };

  it('serves a loaded membership without loading it again, until identity announces a change', async () => {
    loads = 0;
    assert.equal((await cache.get('org-a', 'ada', loader(membership('edit', ['team-1'])))).role, 'edit');
    assert.equal((await cache.get('org-a', 'ada', loader(membership('admin')))).role, 'edit');
    assert.equal(loads, 1);
    await publishInvalidation(identity, { type: 'membership', organizationId: 'org-a', userIds: ['ada'] });
    await untilAsync(async () => (await cached('org-a', 'ada')) === undefined);
    assert.equal((await cache.get('org-a', 'ada', loader(membership('admin')))).role, 'read', 'reloaded after the invalidation');
  });

  it('drops every member of an organization on an organization-wide invalidation, and only them', async () => {
    loads = 0;
    for (const user of ['u1', 'u2']) await cache.get('org-b', user, loader(membership('read')));
    await cache.get('org-c', 'u1', loader(membership('read')));
    await publishInvalidation(identity, { type: 'membership', organizationId: 'org-b' });
    await untilAsync(async () => (await cached('org-b', 'u1')) === undefined);
    assert.equal(await cached('org-b', 'u2'), undefined);
    assert.ok(await cached('org-c', 'u1'), 'another organization keeps its entries');
    // A token's invalidation is not a membership's.
    await publishInvalidation(identity, { type: 'token', tokenHash: 'org-c\nu1' });
    await sleep(50);
    assert.ok(await cached('org-c', 'u1'));
  });

  it('does not keep an answer that an invalidation overtook (it still serves the request that loaded it)', async () => {
    let release!: () => void;
    const slow = cache.get('org-d', 'bob', async () => {
      await new Promise<void>((resolve) => (release = resolve));
      return membership('admin');
    });
    await publishInvalidation(identity, { type: 'membership', organizationId: 'org-d', userIds: ['someone-else'] });
    await sleep(50);
    release();
    assert.equal((await slow).role, 'admin');
    assert.equal(await cached('org-d', 'bob'), undefined, 'loaded before the invalidation: not kept');
    assert.equal((await cache.get('org-d', 'bob', loader(membership('read')))).role, 'read');
    assert.ok(await cached('org-d', 'bob'));
  });

  it('is bypassed while its subscription is down and starts empty once it is back (messages may have been missed)', async () => {
    await cache.get('org-e', 'cy', loader(membership('edit')));
    assert.ok(await cached('org-e', 'cy'));
    await killSubscriptions(identity, `${invalidationChannel(service)}:memberships`);
    await until('the cache to notice', () => !cacheIsLive(cache));
    loads = 0;
    await cache.get('org-e', 'cy', loader(membership('read')));
    await cache.get('org-e', 'cy', loader(membership('read')));
    assert.equal(loads, 2, 'nothing is served nor kept while the subscription is down');
    await until('the subscription to come back', () => cacheIsLive(cache));
    assert.equal(await cached('org-e', 'cy'), undefined, 'what was cached before the drop is gone');
  });

  it('caches tokens the same way, invalidated by token hash', async () => {
    const tokens = createTokenCache<{ userId: string }>(service, { ttlMs: 30_000, logger });
    await until('the token subscription', () => tokens.active);
    const mark = tokens.mark();
    assert.equal(tokens.keep('hash-1', { userId: 'ada' }, mark), true);
    assert.deepEqual(tokens.lookup('hash-1'), { userId: 'ada' });
    await publishInvalidation(identity, { type: 'token', tokenHash: 'hash-1' });
    await until('the revocation', () => tokens.lookup('hash-1') === undefined);
    assert.equal(tokens.keep('hash-1', { userId: 'ada' }, mark), false, 'a resolution started before the revocation is not kept');
    tokens.close();
  });

  it('tells which of the keys it held an invalidation dropped, for a cache that reads them again ahead', async () => {
    const dropped: string[][] = [];
    const select = (invalidation: CacheInvalidation) => (invalidation.type === 'documents' && invalidation.ids ? { keys: invalidation.ids } : undefined);
    const documents = new InvalidatedCache<{ v: number }>(service, {
      name: 'dropped-test',
      max: 10,
      ttlMs: 30_000,
      select,
      logger,
      onDropped: (keys) => dropped.push(keys),
    });
    await until('its subscription', () => documents.active);
    documents.keep('held', { v: 1 }, documents.mark());
    await publishInvalidation(identity, { type: 'documents', collection: 'db.things', ids: ['held', 'never-held'] });
    await until('the drop', () => documents.lookup('held') === undefined);
    assert.deepEqual(dropped, [['held']], 'only what it held');
    await publishInvalidation(identity, { type: 'documents', collection: 'db.things', ids: ['never-held'] });
    await publishInvalidation(identity, { type: 'token', tokenHash: 'unrelated' });
    documents.keep('fence', { v: 2 }, documents.mark());
    await publishInvalidation(identity, { type: 'documents', collection: 'db.things', ids: ['fence'] });
    await until('the fence', () => dropped.length === 2);
    assert.deepEqual(dropped, [['held'], ['fence']], 'nothing for keys it did not hold, nor for other invalidations');
    documents.close();
  });

  it('keeps entries under the tags of the documents they were made from, dropped by any of them, and refuses one made around a drop', async () => {
    const pages = new InvalidatedCache<{ v: number }>(service, { name: 'tags-test', max: 10, ttlMs: 30_000, select: byDocumentTags(), logger, settleMs: 300 });
    await until('its subscription', () => pages.active);
    const [site, space, other] = [documentTag('db.sites', 's1'), documentTag('db.spaces', 'p1'), documentTag('db.spaces', 'p2')];
    assert.equal(pages.keep('a', { v: 1 }, pages.mark(), [site, space]), true);
    assert.equal(pages.keep('b', { v: 2 }, pages.mark(), [site, other]), true);
    assert.equal(pages.keep('c', { v: 3 }, pages.mark(), [other]), true);
    // A write of another document of the same collection, or of the same id in another one, drops nothing.
    await publishInvalidation(identity, { type: 'documents', collection: 'db.spaces', ids: ['p3'] });
    await publishInvalidation(identity, { type: 'documents', collection: 'db.pages', ids: ['p1'] });
    const mark = pages.mark();
    await publishInvalidation(identity, { type: 'documents', collection: 'db.spaces', ids: ['p1'] });
    await until('the drop', () => pages.lookup('a') === undefined);
    assert.deepEqual([pages.lookup('b')?.v, pages.lookup('c')?.v], [2, 3], 'only the entries made from it');
    // Made before the drop, or in the moment after it (its source may not have heard of it yet): not kept; other tags are.
    assert.equal(pages.keep('a', { v: 1 }, mark, [site, space]), false);
    assert.equal(pages.keep('a', { v: 1 }, pages.mark(), [site, space]), false);
    assert.equal(pages.keep('d', { v: 4 }, mark, [other]), true);
    await sleep(350);
    assert.equal(pages.keep('a', { v: 1 }, pages.mark(), [site, space]), true);
    // A write of every document of a collection drops everything.
    await publishInvalidation(identity, { type: 'documents', collection: 'db.sites' });
    await until('the drop of all', () => ['a', 'b', 'c', 'd'].every((key) => pages.lookup(key) === undefined));
    pages.close();
  });
});

async function untilAsync(condition: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(5);
  }
}

function cacheIsLive(cache: MembershipCache): boolean {
  return cache.active;
}

/** Closes the named subscriber connections server-side, as a network drop would. */
async function killSubscriptions(redis: RedisClient, name: string): Promise<void> {
  const list = (await redis.client('LIST')) as string;
  const ids = list
    .split('\n')
    .filter((line) => line.includes(` name=${name} `))
    .map((line) => /\bid=(\d+)/.exec(line)![1]);
  assert.ok(ids.length > 0, `no connection named ${name}`);
  for (const id of ids) await redis.client('KILL', 'ID', id);
}

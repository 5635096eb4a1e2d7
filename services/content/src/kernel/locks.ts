import { httpError } from '@quire/http';
import { withRedisLock } from '@quire/runtime';
import { z } from 'zod';
import type { ContentContext } from './context';

/*
 * Short per-document write locks in Redis. Why, on top of conditional updates: FerretDB
 * v1 applies an update as read-modify-write of the whole document without isolation, so
 * two concurrent conditional updates can both "match" and the last one silently wins
 * (measured: three concurrent `updateOne({v: 0}, {$inc: {v: 1}})` all report a
 * modification and v ends at 1). Every write this code makes to a Space or a change
 * request document therefore runs under that document's lock; the conditional updates
 * stay, so a lock that expired mid-way still cannot make MongoDB lose a write.
 * Collections are written under their own lock for the same reason.
 * Lock order (no deadlock): collection before space before change request, never the
 * reverse; code that writes several collections or spaces takes one lock at a time.
 */

const TTL_MS = 60_000;
const DEFAULT_WAIT_MS = 30_000;

/** The lock setting of the service's config (config.ts merges it in). */
export const lockConfigSchema = z.object({
  /** How long a write waits for a space, collection or change request another write holds, before a 503. */
  CONTENT_LOCK_WAIT_MS: z.coerce.number().int().positive().default(DEFAULT_WAIT_MS),
});
type LockConfig = z.infer<typeof lockConfigSchema>;

const onBusy = () => httpError.unavailable('The content is busy with other writes; retry');

/** Runs `work` holding the content lock `key` (spaceLock, changeRequestLock, collectionLock). */
export function withLock<T>(ctx: ContentContext, key: string, work: () => Promise<T>): Promise<T> {
  const waitMs = (ctx.config as Partial<LockConfig>).CONTENT_LOCK_WAIT_MS ?? DEFAULT_WAIT_MS;
  return withRedisLock(ctx.redis, `content:lock:${key}`, work, { ttlMs: TTL_MS, waitMs, onBusy, logger: ctx.logger });
}

export const spaceLock = (spaceId: string) => `space:${spaceId}`;
export const changeRequestLock = (changeRequestId: string) => `change-request:${changeRequestId}`;
export const collectionLock = (collectionId: string) => `collection:${collectionId}`;

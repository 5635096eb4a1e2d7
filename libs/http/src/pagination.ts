import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { QueryFilter, Model } from 'mongoose';
import { z } from 'zod';
import { requestContext } from '@quire/runtime';
import { HttpError } from './errors';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export const orderSchema = z.enum(['asc', 'desc']).default('desc');

export const listQuerySchema = z.object({
  page: z.string().max(12_000).optional(),
  limit: z.coerce.number().int('must be an integer').min(1).max(MAX_PAGE_SIZE).default(DEFAULT_PAGE_SIZE),
});
export type ListQuery = z.infer<typeof listQuerySchema>;

export interface ListEnvelope<T> {
  next?: { page: string };
  count: number;
  items: T[];
}

/** The list body of design.md §3: `next` only when there is a next page. */
export function listEnvelope<T>(items: T[], count: number, next?: string): ListEnvelope<T> {
  return next ? { next: { page: next }, count, items } : { count, items };
}

type SortValue = string | number | Date | null;

/**
 * Cursors are signed, so a cursor that is not exactly what this list wrote (forged, edited, of
 * another list, or of the same list in another organization, space or site) is refused before
 * any of it reaches a query. The signature covers the list it belongs to: the path it was asked
 * at (an HTTP request's; none in a gRPC call or a job) and, for a stored list, `list` (its
 * collection and the fixed values of its filter: organization, space, user…). The key derives
 * from the deployment's internal secret so every replica accepts every other's cursors.
 */
let cursorKey: Buffer | undefined;
function cursorMac(payload: string, list: string): string {
  cursorKey ??= createHmac('sha256', process.env.INTERNAL_HMAC_SECRET || randomBytes(32).toString('hex'))
    .update('quire list cursor')
    .digest();
  const scope = JSON.stringify([requestContext.getStore()?.path ?? '', list]);
  return createHmac('sha256', cursorKey).update(`${scope}\n${payload}`).digest('base64url').slice(0, 22);
}

/** A stored list: its collection and the scalar values its filter fixes (never a range, a pattern or a set). */
function storedList(model: Pick<Model<unknown>, 'collection'>, filter: Record<string, unknown>): string {
  const fixed = Object.entries(filter)
    .filter(([, value]) => value === null || ['string', 'number', 'boolean'].includes(typeof value))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([model.collection.collectionName, fixed]);
}

const MAX_CURSOR_TEXT = 4096;
const CURSOR_VALUE = z.union([
  z.object({ v: z.union([z.string().max(MAX_CURSOR_TEXT), z.number().finite(), z.null()]) }).strict(),
  z.object({ d: z.iso.datetime() }).strict(),
]);
const CURSOR = z.tuple([z.string(), CURSOR_VALUE, z.string().min(1).max(4096)]);

/** A case-insensitive "contains" filter for a list's text search: the text is matched literally, never as a pattern. */
export function containsText(text: string): RegExp {
  return new RegExp(text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i');
}

/** Opaque keyset cursor: which sort key it belongs to, the last value and the last id; signed for its list (`list`: see cursorMac). */
export function encodeCursor(sortKey: string, value: SortValue, id: string, list = ''): string {
  const encoded = value instanceof Date ? { d: value.toISOString() } : { v: value };
  const payload = Buffer.from(JSON.stringify([sortKey, encoded, id])).toString('base64url');
  return `${payload}.${cursorMac(payload, list)}`;
}

/** The position a cursor of this list holds; anything else is a 400, never a query. */
export function decodeCursor(sortKey: string, page: string, list = ''): { value: SortValue; id: string } {
  const invalid = () => new HttpError(400, 'Invalid query: page: not a cursor of this list');
  const dot = page.lastIndexOf('.');
  if (dot <= 0) throw invalid();
  const payload = page.slice(0, dot);
  const given = Buffer.from(page.slice(dot + 1));
  const expected = Buffer.from(cursorMac(payload, list));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalid();
  let parsed: z.infer<typeof CURSOR>;
  try {
    parsed = CURSOR.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    throw invalid();
  }
  const [key, encoded, id] = parsed;
  if (key !== sortKey) throw invalid();
  return { value: 'd' in encoded ? new Date(encoded.d) : encoded.v, id };
}

export interface KeysetPage<T> {
  items: T[];
  next?: string;
  count: number;
}

/**
 * One page of `model` in (sortField, _id) order, continuing after the cursor: an indexed
 * range query whatever the page number (no skip). `count` is the total for `filter`.
 */
export async function keysetPage<T extends { _id: unknown }>(
  model: Model<T>,
  options: {
    filter: QueryFilter<T>;
    sortField: string;
    order: 'asc' | 'desc';
    limit: number;
    page?: string;
  },
): Promise<KeysetPage<T>> {
  const { filter, sortField, order, limit, page } = options;
  const direction = order === 'asc' ? 1 : -1;
  const beyond = order === 'asc' ? '$gt' : '$lt';
  const list = storedList(model, filter as Record<string, unknown>);
  let query: QueryFilter<T> = filter;
  if (page) {
    const { value, id } = decodeCursor(sortField, page, list);
    const after = {
      $or: [{ [sortField]: { [beyond]: value } }, { [sortField]: value, _id: { [beyond]: id } }],
    } as QueryFilter<T>;
    // The list's own equality filters stay at the top level: FerretDB pushes only those down to
    // its indexes (inside $and it would scan the whole collection for every page).
    query = ('$or' in filter ? { $and: [filter, after] } : { ...filter, ...after }) as QueryFilter<T>;
  }
  const sort = sortField === '_id' ? { _id: direction } : { [sortField]: direction, _id: direction };
  const [rows, count] = await Promise.all([
    model
      .find(query)
      .sort(sort as Record<string, 1 | -1>)
      .limit(limit + 1)
      .lean<T[]>(),
    model.countDocuments(filter),
  ]);
  const items = rows.slice(0, limit);
  const last = items[items.length - 1] as Record<string, unknown> | undefined;
  const next = rows.length > limit && last ? encodeCursor(sortField, last[sortField] as SortValue, String(last._id), list) : undefined;
  return { items, next, count };
}

/** How the items of an in-memory list are ordered: ascending by (value, id); the cursor is named `cursor`. */
export interface MemoryOrder<T> {
  cursor: string;
  positionOf(item: T): readonly [value: string | number, id: string];
}

/** The order of a list sorted by a unique string key. */
export const byKey = <T>(keyOf: (item: T) => string): MemoryOrder<T> => ({ cursor: 'key', positionOf: (item) => [keyOf(item), keyOf(item)] });

/**
 * One keyset page of a list already in memory and sorted by `order` (computed lists: links,
 * backlinks, a site's structure…): the cursor holds the last item's position, never an offset,
 * like the stored lists'. `count` is the whole list's length.
 */
export function memoryPage<T, R>(
  items: readonly T[],
  order: MemoryOrder<NoInfer<T>>,
  query: { limit: number; page?: string },
  present: (item: T) => R,
): ListEnvelope<R> {
  let rest = items;
  if (query.page) {
    const { value, id } = decodeCursor(order.cursor, query.page);
    rest = items.filter((item) => {
      const [itemValue, itemId] = order.positionOf(item);
      return itemValue > (value as string | number) || (itemValue === value && itemId > id);
    });
  }
  const page = rest.slice(0, query.limit);
  const last = page[page.length - 1];
  const next = rest.length > query.limit && last !== undefined ? encodeCursor(order.cursor, ...order.positionOf(last)) : undefined;
  return listEnvelope(page.map(present), items.length, next);
}

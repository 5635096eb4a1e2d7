import type { QueryFilter, Model } from 'mongoose';
import { z } from 'zod';
import { HttpError } from './errors';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;

export const orderSchema = z.enum(['asc', 'desc']).default('desc');

export const listQuerySchema = z.object({
  page: z.string().max(2048).optional(),
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

/** Opaque keyset cursor: which sort key it belongs to, the last value and the last id. */
export function encodeCursor(sortKey: string, value: SortValue, id: string): string {
  const encoded = value instanceof Date ? { d: value.toISOString() } : { v: value };
  return Buffer.from(JSON.stringify([sortKey, encoded, id])).toString('base64url');
}

export function decodeCursor(sortKey: string, page: string): { value: SortValue; id: string } {
  try {
    const [key, encoded, id] = JSON.parse(Buffer.from(page, 'base64url').toString('utf8'));
    if (key !== sortKey || typeof id !== 'string' || typeof encoded !== 'object' || encoded === null) throw new Error('mismatch');
    const value = 'd' in encoded ? new Date(encoded.d) : encoded.v;
    if (value instanceof Date && Number.isNaN(value.getTime())) throw new Error('bad date');
    return { value, id };
  } catch {
    throw new HttpError(400, 'Invalid query: page: not a cursor of this list');
  }
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
  let query: QueryFilter<T> = filter;
  if (page) {
    const { value, id } = decodeCursor(sortField, page);
    const after = {
      $or: [{ [sortField]: { [beyond]: value } }, { [sortField]: value, _id: { [beyond]: id } }],
    } as QueryFilter<T>;
    query = { $and: [filter, after] } as QueryFilter<T>;
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
  const next = rows.length > limit && last ? encodeCursor(sortField, last[sortField] as SortValue, String(last._id)) : undefined;
  return { items, next, count };
}

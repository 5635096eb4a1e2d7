import { z } from 'zod';

/** A timestamp: ISO 8601 in UTC, as `Date#toISOString` writes it. */
export const timestamp = z.iso.datetime();
/** An address the server makes (API, app, published, files). */
export const url = z.url();

/** spec "Role enum". */
export const role = z.enum(['admin', 'create', 'review', 'edit', 'comment', 'read']).meta({ id: 'MemberRole' });

/** A `permissions` object: one boolean per action named. */
export function permissions<const K extends string>(...keys: K[]) {
  return z.object(Object.fromEntries(keys.map((key) => [key, z.boolean()])) as Record<K, z.ZodBoolean>);
}

/** A `urls` object: the required addresses, then the optional ones. */
export function urls<const R extends string, const O extends string = never>(required: R[], optional: O[] = []) {
  return z.object({
    ...(Object.fromEntries(required.map((key) => [key, url])) as Record<R, typeof url>),
    ...(Object.fromEntries(optional.map((key) => [key, url.optional()])) as Record<O, z.ZodOptional<typeof url>>),
  });
}

/** spec "List envelope": `{ next?: { page }, count, items }`. */
export function list<T extends z.ZodType>(item: T) {
  return z.object({ next: z.object({ page: z.string() }).optional(), count: z.number().int().min(0), items: z.array(item) });
}

/** A rich-text document (spec "Rich-text document"): blocks, recursively. */
export const document = z
  .object({
    object: z.literal('document'),
    data: z.looseObject({ schemaVersion: z.number() }).optional(),
    nodes: z.array(z.looseObject({ object: z.string() })),
  })
  .meta({ id: 'Document' });

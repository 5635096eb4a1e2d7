import type mongoose from 'mongoose';

/*
 * Documents by many ids, the way the engine answers fastest. MongoDB serves `_id: {$in}` from
 * its index in one round trip. FerretDB v1 pushes no `$in` down: it reads the whole collection
 * and filters in Go, so on it the same batch is one indexed point query per id, run together.
 */

const ferretDbConnections = new WeakSet<mongoose.Connection>();
/** Point queries in flight at once for one batch on FerretDB. */
const PARALLEL = 32;

/** Records that this connection talks to FerretDB (connectDatabase does, once). */
export function markFerretDb(connection: mongoose.Connection): void {
  ferretDbConnections.add(connection);
}

/**
 * The documents with these ids that also match `filter` (equality fields such as
 * `organizationId`), lean, in no particular order; unknown ids are left out.
 */
export async function findByIds<T>(
  model: mongoose.Model<T>,
  ids: readonly string[],
  options: { filter?: Record<string, unknown>; projection?: Record<string, 0 | 1> } = {},
): Promise<T[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const filter = options.filter ?? {};
  if (unique.length === 1 || !ferretDbConnections.has(model.db)) {
    const byId = unique.length === 1 ? unique[0] : { $in: unique };
    return model.find({ ...filter, _id: byId }, options.projection).lean<T[]>();
  }
  const found: T[] = [];
  for (let i = 0; i < unique.length; i += PARALLEL) {
    const chunk = unique.slice(i, i + PARALLEL);
    const answers = await Promise.all(chunk.map((id) => model.findOne({ ...filter, _id: id }, options.projection).lean<T>()));
    for (const doc of answers) if (doc) found.push(doc);
  }
  return found;
}

import { createHash } from 'node:crypto';
import { newId } from '@quire/runtime';
import { httpError } from '@quire/http';
import type { RevisionDoc, RevisionFileDoc, RevisionPageDoc } from '../db/revisions';
import type { ContentContext } from './context';

/** Key of a page body or a file blob in the content-addressed stores. */
export function contentHash(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

export const EMPTY_BODY_HASH = contentHash('');

/**
 * Stores markdown bodies by hash. A body already stored (in any revision of any space)
 * costs nothing: the upsert only inserts what is missing, and bodies are never updated.
 */
export async function storeBodies(ctx: ContentContext, bodies: Map<string, string>): Promise<void> {
  if (bodies.size === 0) return;
  const ids = [...bodies.keys()];
  const existing = await ctx.models.PageBody.find({ _id: { $in: ids } }, { _id: 1 }).lean();
  const known = new Set(existing.map((doc) => doc._id));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length === 0) return;
  await ctx.models.PageBody.bulkWrite(
    missing.map((id) => ({ updateOne: { filter: { _id: id }, update: { $setOnInsert: { markdown: bodies.get(id) ?? '' } }, upsert: true } })),
    { ordered: false },
  );
}

/** Markdown of the given hashes (missing hashes read as empty). */
export async function loadBodies(ctx: ContentContext, hashes: Iterable<string>): Promise<Map<string, string>> {
  const wanted = [...new Set(hashes)];
  const bodies = new Map<string, string>([[EMPTY_BODY_HASH, '']]);
  const toFetch = wanted.filter((hash) => !bodies.has(hash));
  if (toFetch.length > 0) {
    const docs = await ctx.models.PageBody.find({ _id: { $in: toFetch } }).lean();
    for (const doc of docs) bodies.set(doc._id, doc.markdown);
  }
  return bodies;
}

export async function loadRevision(ctx: ContentContext, revisionId: string): Promise<RevisionDoc> {
  const revision = await ctx.models.Revision.findById(revisionId).lean<RevisionDoc>();
  if (!revision) throw httpError.notFound('Revision');
  return revision;
}

/** Writes a new immutable revision (its bodies and blobs must be stored first). */
export async function writeRevision(
  ctx: ContentContext,
  input: { spaceId: string; parents: string[]; pages: RevisionPageDoc[]; files: RevisionFileDoc[]; createdBy: string },
): Promise<RevisionDoc> {
  const revision: RevisionDoc = {
    _id: newId(),
    spaceId: input.spaceId,
    parents: input.parents,
    type: 'edits',
    pages: input.pages,
    files: input.files,
    createdBy: input.createdBy,
    createdAt: new Date(),
    git: null,
  };
  await ctx.models.Revision.create(revision);
  return revision;
}

/** "Getting Started!" → "getting-started": the slug a page gets when none is given. */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100);
  return slug || 'page';
}

/** Stores file bytes by hash; bytes already stored cost nothing. */
export async function storeBlobs(ctx: ContentContext, blobs: Map<string, Buffer>): Promise<void> {
  if (blobs.size === 0) return;
  const ids = [...blobs.keys()];
  const existing = await ctx.models.FileBlob.find({ _id: { $in: ids } }, { _id: 1 }).lean();
  const known = new Set(existing.map((doc) => doc._id));
  const missing = ids.filter((id) => !known.has(id));
  if (missing.length === 0) return;
  await ctx.models.FileBlob.bulkWrite(
    missing.map((id) => {
      const data = blobs.get(id) as Buffer;
      return { updateOne: { filter: { _id: id }, update: { $setOnInsert: { data, size: data.length } }, upsert: true } };
    }),
    { ordered: false },
  );
}

import { Schema, type Model } from 'mongoose';
import type { ModelDefinitions } from '@quire/runtime';
import type { ContentContext, ContentModels } from '../kernel';

/*
 * The stored search indexes (collection search_indexes): gzip'd JSON of one revision's
 * index, whole (a snapshot) or as a delta on an earlier revision's snapshot, in parts of
 * at most PART_BYTES. Every read and delete is by `_id`.
 */

/**
 * One part of the persisted full-text index of one (immutable) revision: gzip'd JSON,
 * split into parts of at most ~12 MB so a large space stays under the 16 MB document
 * limit. Part 0 has `_id` = revision id and is written last, so whoever finds it finds
 * every other part (`<revisionId>:<n>`) already stored; every read is by `_id` (the only
 * filter FerretDB serves from an index).
 *
 * An index is stored either whole (a snapshot, `base` null) or as a delta on the snapshot
 * of an earlier revision (`base`): the sections of the pages whose body changed since.
 */
export interface SearchIndexPartDoc {
  _id: string;
  revisionId: string;
  spaceId: string;
  part: number;
  /** How many parts the index has (the same on every part). */
  parts: number;
  /** Layout of the serialized index; an index of another format is built again. */
  format: number;
  /** The revision whose stored snapshot this delta applies to; null for a snapshot. */
  base: string | null;
  /** Bytes of the whole gzip'd index (all parts). */
  size: number;
  data: Buffer;
  createdAt: Date;
}

const searchIndexPartSchema = new Schema<SearchIndexPartDoc>(
  {
    _id: String,
    revisionId: { type: String, required: true },
    spaceId: { type: String, required: true },
    part: { type: Number, required: true },
    parts: { type: Number, required: true },
    format: { type: Number, required: true },
    base: { type: String, default: null },
    size: { type: Number, required: true },
    data: { type: Buffer, required: true },
    createdAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// Removal with a purged space.
searchIndexPartSchema.index({ spaceId: 1 });

declare module '../kernel' {
  interface ContentModels {
    SearchIndexPart: Model<SearchIndexPartDoc>;
  }
}

/** What the functions below read and write (they take the models: tests call them on a database of their own). */
export type SearchIndexModels = Pick<ContentModels, 'SearchIndexPart'>;

export const searchModelDefinitions: ModelDefinitions<SearchIndexModels> = {
  SearchIndexPart: [searchIndexPartSchema, 'search_indexes'],
};

/** Bumped when tokenization or the stored layout changes: older stored indexes read as absent (and are built again). */
export const FORMAT = 2;

const PART_BYTES = 12 * 1024 * 1024;
const partId = (revisionId: string, part: number) => (part === 0 ? revisionId : `${revisionId}:${part}`);

function bufferOf(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  const bytes = (value as { buffer: Uint8Array }).buffer;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/**
 * Stores `data` as the index of `revisionId` (a delta on `base`'s snapshot when `base` is
 * given), replacing any earlier one (so a rebuild is visible in `createdAt`; parts of an
 * earlier one with more parts are deleted). Part 0 is written last: a reader that finds
 * it finds them all.
 */
export async function storeIndexData(
  models: SearchIndexModels,
  target: { revisionId: string; spaceId: string; base?: string | null },
  data: Buffer,
  partBytes = PART_BYTES,
): Promise<void> {
  const parts = Math.max(1, Math.ceil(data.length / partBytes));
  const earlier = await models.SearchIndexPart.findById(target.revisionId, { parts: 1 }).lean<Pick<SearchIndexPartDoc, 'parts'>>();
  const createdAt = new Date();
  for (let part = parts - 1; part >= 0; part--) {
    const doc: SearchIndexPartDoc = {
      _id: partId(target.revisionId, part),
      revisionId: target.revisionId,
      spaceId: target.spaceId,
      part,
      parts,
      format: FORMAT,
      base: target.base ?? null,
      size: data.length,
      data: data.subarray(part * partBytes, (part + 1) * partBytes),
      createdAt,
    };
    await models.SearchIndexPart.replaceOne({ _id: doc._id }, doc, { upsert: true });
  }
  for (let part = parts; part < (earlier?.parts ?? 0); part++) await models.SearchIndexPart.deleteOne({ _id: partId(target.revisionId, part) });
}

/**
 * What kind of index `revisionId` has stored (`base` null for a snapshot), without its
 * data; null when none or of another format (`anyFormat`: also of another format, to
 * find what an outdated delta builds on when deleting it).
 */
export async function readIndexHead(models: SearchIndexModels, revisionId: string, anyFormat = false): Promise<{ base: string | null } | null> {
  const head = await models.SearchIndexPart.findById(revisionId, { format: 1, base: 1 }).lean<Pick<SearchIndexPartDoc, 'format' | 'base'>>();
  return head && (anyFormat || head.format === FORMAT) ? { base: head.base ?? null } : null;
}

/** The stored index of `revisionId`, or null when there is none (or an incomplete or outdated one). */
export async function readIndexData(models: SearchIndexModels, revisionId: string): Promise<Buffer | null> {
  const head = await models.SearchIndexPart.findById(revisionId).lean<SearchIndexPartDoc>();
  if (!head || head.format !== FORMAT) return null;
  const chunks = [bufferOf(head.data)];
  for (let part = 1; part < head.parts; part++) {
    const doc = await models.SearchIndexPart.findById(partId(revisionId, part)).lean<SearchIndexPartDoc>();
    if (!doc || doc.size !== head.size || doc.parts !== head.parts) return null;
    chunks.push(bufferOf(doc.data));
  }
  const data = Buffer.concat(chunks);
  return data.length === head.size ? data : null;
}

/** Removes the stored index of `revisionId` (point deletes by id, part 0 first so no reader finds it half deleted). */
export async function deleteIndexData(models: SearchIndexModels, revisionId: string): Promise<void> {
  const head = await models.SearchIndexPart.findById(revisionId, { parts: 1 }).lean<Pick<SearchIndexPartDoc, 'parts'>>();
  if (!head) return;
  for (let part = 0; part < head.parts; part++) await models.SearchIndexPart.deleteOne({ _id: partId(revisionId, part) });
}

/** Removes every stored index of a purged space. */
export async function purgeSpaceSearchIndexes(ctx: ContentContext, spaceId: string): Promise<void> {
  await ctx.models.SearchIndexPart.deleteMany({ spaceId });
}

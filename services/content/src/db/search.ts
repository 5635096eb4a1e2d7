import { Schema, type Model } from 'mongoose';
import type { ModelDefinitions } from '@quire/runtime';

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

export interface SearchIndexModels {
  SearchIndexPart: Model<SearchIndexPartDoc>;
}

export const searchModelDefinitions: ModelDefinitions<SearchIndexModels> = {
  SearchIndexPart: [searchIndexPartSchema, 'search_indexes'],
};

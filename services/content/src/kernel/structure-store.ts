import { Schema } from 'mongoose';
import { ROLES, type ModelDefinitions, type Role } from '@quire/runtime';
import type { ContentModels } from './context';

/*
 * Spaces and collections, the organization's structure. Their documents live in the kernel
 * because every module reads them: access computes roles over a space and its collection
 * chain, revisions move a space's revision, change requests and comments keep its counters.
 * What is done with them (create, move, delete…) belongs to the structure module.
 */

/**
 * A resource's default level (OpenAPI DefaultLevel): a role every organization member
 * gets on it, null (guest: members get nothing by default) or 'inherit' (take the
 * parent collection's level; at the organization root, the member's own org role).
 */
export type DefaultLevel = Role | null | 'inherit';

export type SpaceVisibility = 'public' | 'unlisted' | 'share-link' | 'visitor-auth' | 'in-collection' | 'private';

export type MergeRulesDoc =
  | { type: 'inherit' }
  | { type: 'none' }
  | { type: 'rules'; rules: Array<{ rule: 'require_specific_reviewers'; users: string[] }>; requireNoNewBrokenLinks?: boolean };

export interface SpaceDoc {
  _id: string;
  organizationId: string;
  title: string;
  emoji: string;
  visibility: SpaceVisibility;
  /** Parent collection id, or null at the organization root. */
  parentId: string | null;
  /** Order among siblings (same parent): ascending; moves pick a value between neighbours. */
  position: number;
  /** The active (primary) revision. Advanced only by a conditional update on `version`. */
  revisionId: string;
  /** Optimistic-concurrency counter: every write of `revisionId` matches and increments it. */
  version: number;
  /** A role, null (guest: no default access) or 'inherit' (parent collection, else the org role). */
  defaultLevel: DefaultLevel;
  editMode: 'live' | 'locked';
  mergeRules: MergeRulesDoc;
  language?: string | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  deletedAt?: Date | null;
  /** Open comments; kept true by the code that opens/resolves/deletes comments. */
  comments: number;
  changeRequests: number;
  changeRequestsOpen: number;
  changeRequestsDraft: number;
  /** Last change request number handed out (incremented atomically with $inc). */
  changeRequestSeq: number;
  /**
   * false: the space never had a Git sync state, so reads skip looking one up. Set to true
   * before a state is first written; absent on spaces made before the flag (looked up).
   */
  gitSync?: boolean;
}

export interface CollectionDoc {
  _id: string;
  organizationId: string;
  title: string;
  description?: string | null;
  parentId: string | null;
  position: number;
  defaultLevel: DefaultLevel;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

const roleField = { type: String, enum: [...ROLES, 'inherit', null], default: 'inherit' as DefaultLevel };

const mergeRulesSchema = new Schema(
  {
    type: { type: String, enum: ['inherit', 'none', 'rules'], required: true },
    rules: { type: [{ _id: false, rule: String, users: [String] }], default: undefined },
    requireNoNewBrokenLinks: { type: Boolean, default: undefined },
  },
  { _id: false },
);

const spaceSchema = new Schema<SpaceDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    title: { type: String, default: '' },
    emoji: { type: String, default: '' },
    visibility: { type: String, required: true },
    parentId: { type: String, default: null },
    position: { type: Number, default: 0 },
    revisionId: { type: String, required: true },
    version: { type: Number, default: 0 },
    defaultLevel: roleField,
    editMode: { type: String, enum: ['live', 'locked'], default: 'live' },
    mergeRules: { type: mergeRulesSchema, default: () => ({ type: 'inherit' }) },
    language: { type: String, default: null },
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    deletedAt: { type: Date, default: null },
    comments: { type: Number, default: 0 },
    changeRequests: { type: Number, default: 0 },
    changeRequestsOpen: { type: Number, default: 0 },
    changeRequestsDraft: { type: Number, default: 0 },
    changeRequestSeq: { type: Number, default: 0 },
    // No default: a space read without the field must keep meaning "unknown, look it up".
    gitSync: { type: Boolean },
  },
  { versionKey: false },
);

const collectionSchema = new Schema<CollectionDoc>(
  {
    _id: String,
    organizationId: { type: String, required: true },
    title: { type: String, default: '' },
    description: { type: String, default: null },
    parentId: { type: String, default: null },
    position: { type: Number, default: 0 },
    defaultLevel: roleField,
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
  },
  { versionKey: false },
);

// Indexes: every list filter and cursor sort (design.md §5). The structure owner adds more as lists need them.
// Org space lists (keyset on createdAt, _id), sibling order, collection space lists.
spaceSchema.index({ organizationId: 1, deletedAt: 1, createdAt: -1, _id: -1 });
spaceSchema.index({ organizationId: 1, parentId: 1, deletedAt: 1, position: 1 });
spaceSchema.index({ parentId: 1, deletedAt: 1, position: 1, _id: 1 });
collectionSchema.index({ organizationId: 1, parentId: 1, position: 1 });
collectionSchema.index({ organizationId: 1, createdAt: -1, _id: -1 });
collectionSchema.index({ parentId: 1 });

/** The spaces and collections of the kernel's own models (see ContentModels). */
export type StructureModels = Pick<ContentModels, 'Space' | 'Collection'>;

export const structureModelDefinitions: ModelDefinitions<StructureModels> = {
  Space: [spaceSchema, 'spaces'],
  Collection: [collectionSchema, 'collections'],
};

import { Schema, type Model } from 'mongoose';
import { z } from 'zod';
import type { PageLayout } from '@quire/contract';
import { storedJson, type ModelDefinitions } from '@quire/runtime';
import type { ContentModels } from '../kernel';

/**
 * One page of a revision's tree. The tree is stored flat in pre-order (a page follows its
 * parent, siblings keep their order) with parent pointers: no nested arrays (FerretDB v1)
 * and a revision of thousands of pages stays one small document of ids, titles and hashes.
 */
export interface RevisionPageDoc {
  id: string;
  /** Parent page id; null at the root of the space. */
  parent: string | null;
  title: string;
  slug: string;
  emoji: string;
  description: string;
  hidden: boolean;
  /**
   * GitBook's indexing flags: `noIndex` leaves the page out of the space's search (and ask),
   * `noRobotsIndex` asks search engine robots not to index it. Absent means false, and a
   * page holds them only when true (setPageFlag): revisions written before them read as
   * false, and pages compare alike whichever way they were written.
   */
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  /**
   * The options of the page's layout that differ from GitBook's defaults (page-layout.ts);
   * absent when none does, as in revisions written before layouts.
   */
  layout?: Partial<PageLayout>;
  /** The page's cover image (GitBook's RevisionPageDocumentCover): absent when it has none (page-cover.ts). */
  cover?: PageCover;
  /** sha256 of the markdown body. */
  bodyHash: string;
  /** The BodyPack holding that body ('' for the empty body, or while not stored yet). */
  bodyPack: string;
  createdAt: Date;
  updatedAt: Date;
  /** Where the page came from in a Git import (or was written by an export). */
  git?: GitBlobRef;
  /** Page variables (name → value), evaluated in `{{ page.vars.name }}` expressions. */
  variables?: Record<string, string>;
  /** Set on pages whose body is generated (OpenAPI `builtin:openapi`); the stored body is empty. */
  computed?: PageComputedSource;
  computedSeed?: string;
}

/** An image of a cover: a file of the revision or an address. */
export type CoverImage = { kind: 'file'; file: string } | { kind: 'url'; url: string };

/** A cover image (and GitBook's `refDark`, the one dark themes show) and its vertical position (GitBook's yPos). */
export interface PageCover {
  ref: CoverImage;
  refDark?: CoverImage;
  yPos: number;
}

export interface GitBlobRef {
  oid: string;
  path: string;
}

/** OpenAPI ComputedContentSourceDocument of a computed page. */
export interface PageComputedSource {
  type: string;
  dependencies: Record<string, { ref: Record<string, unknown> }>;
  props: Record<string, unknown>;
}

export interface RevisionGitDoc {
  oid: string;
  message: string;
  createdByService: boolean;
  url?: string;
  ref?: string;
}

export interface RevisionFileDoc {
  id: string;
  name: string;
  contentType: string;
  size: number;
  /** sha256 of the bytes in FileBlob. */
  blobHash: string;
  git?: GitBlobRef;
}

/** A revision as the code uses it (immutable: written once, never updated). */
export interface RevisionDoc {
  _id: string;
  spaceId: string;
  parents: string[];
  type: 'edits';
  pages: RevisionPageDoc[];
  files: RevisionFileDoc[];
  createdBy: string;
  createdAt: Date;
  git?: RevisionGitDoc | null;
  /** Space variables of this revision (name → value), `{{ space.vars.name }}`. */
  variables?: Record<string, string>;
}

/**
 * A revision as stored: the page tree is one gzip'd compact JSON value (tuples, no keys).
 * Measured on FerretDB: a 5,000-page tree as 5,000 sub-documents costs ~300 ms to write
 * and ~350 ms to read; packed it is ~235 KB and ~15 ms either way.
 */
export interface StoredRevisionDoc extends Omit<RevisionDoc, 'pages'> {
  pageData: Buffer;
  pageCount: number;
}

/**
 * Content-addressed page bodies, packed (like Git pack files): each write stores its new
 * bodies in one pack, gzip'd JSON of [hash, markdown] pairs, and pages reference
 * (hash, pack). An unchanged page keeps its reference, so it costs nothing in a new
 * revision; reading N bodies is a few point reads of packs instead of N (and FerretDB
 * cannot use the _id index for $in, so a lookup by many hashes would scan every body).
 */
export interface BodyPackDoc {
  _id: string;
  data: Buffer;
  count: number;
  size: number;
  createdAt: Date;
}

/** Content-addressed file bytes: _id = sha256(data). */
export interface FileBlobDoc {
  _id: string;
  data: Buffer;
  size: number;
}

export type ChangeRequestStatus = 'draft' | 'open' | 'archived' | 'merged';

export interface ReviewDoc {
  id: string;
  userId: string;
  status: 'approved' | 'changes-requested';
  /** The change request revision the review was given on. */
  revisionId: string;
  createdAt: Date;
}

export interface ChangeRequestDoc {
  _id: string;
  spaceId: string;
  organizationId: string;
  number: number;
  status: ChangeRequestStatus;
  subject: string;
  /** The rich-text description as JSON text: its free-form `data` keys may hold '.' or '$'. */
  description: string | null;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
  revisionId: string;
  revisionInitial: string;
  revisionMergedAncestor: string | null;
  revisionMerged: string | null;
  mergedBy: string | null;
  mergedAt: Date | null;
  /** Users who authored a revision of this change request (filter `contributor`). */
  contributors: string[];
  requestedReviewers: string[];
  reviews: ReviewDoc[];
  comments: number;
  conversationsIssuesCluster: string | null;
  /** Optimistic-concurrency counter for writes of `revisionId`. */
  version: number;
}

/**
 * A change request's description (`ChangeRequestDoc.description`), read and written only through
 * this: the rich-text document, `{object, data, nodes}` (descriptions written before requests
 * defaulted `data.schemaVersion`, or refused other top-level keys, read in that shape too).
 */
const changeRequestDescription = z.object({ object: z.literal('document'), data: z.record(z.string(), z.unknown()).optional(), nodes: z.array(z.unknown()) });
export type ChangeRequestDescription = z.input<typeof changeRequestDescription>;
export const changeRequestDescriptionJson = storedJson('ChangeRequest.description', changeRequestDescription);

export interface LinkEntryDoc {
  /** Page holding the link. */
  pageId: string;
  status: 'ok' | 'broken' | 'in-app';
  /** As written in the markdown. */
  href: string;
  kind: 'page' | 'file' | 'url';
  /** Resolved target page or file id (ok links), else null. */
  target: string | null;
}

/** Links of one (immutable) revision, computed once. */
export interface RevisionLinksDoc {
  _id: string;
  spaceId: string;
  links: LinkEntryDoc[];
}

const fileSchema = new Schema<RevisionFileDoc>(
  { id: String, name: String, contentType: String, size: Number, blobHash: String, git: { type: Schema.Types.Mixed, default: undefined } },
  { _id: false },
);

const revisionSchema = new Schema<StoredRevisionDoc>(
  {
    _id: String,
    spaceId: { type: String, required: true },
    parents: { type: [String], default: [] },
    type: { type: String, default: 'edits' },
    pageData: { type: Buffer, required: true },
    pageCount: { type: Number, default: 0 },
    files: { type: [fileSchema], default: [] },
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    git: { type: Schema.Types.Mixed, default: null },
    variables: { type: Schema.Types.Mixed, default: undefined },
  },
  { versionKey: false },
);
revisionSchema.index({ spaceId: 1 });

const bodyPackSchema = new Schema<BodyPackDoc>({ _id: String, data: Buffer, count: Number, size: Number, createdAt: Date }, { versionKey: false });
const fileBlobSchema = new Schema<FileBlobDoc>({ _id: String, data: Buffer, size: Number }, { versionKey: false });

const reviewSchema = new Schema<ReviewDoc>({ id: String, userId: String, status: String, revisionId: String, createdAt: Date }, { _id: false });

const changeRequestSchema = new Schema<ChangeRequestDoc>(
  {
    _id: String,
    spaceId: { type: String, required: true },
    organizationId: { type: String, required: true },
    number: { type: Number, required: true },
    status: { type: String, required: true },
    subject: { type: String, default: '' },
    description: { type: String, default: null },
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    updatedAt: { type: Date, required: true },
    revisionId: { type: String, required: true },
    revisionInitial: { type: String, required: true },
    revisionMergedAncestor: { type: String, default: null },
    revisionMerged: { type: String, default: null },
    mergedBy: { type: String, default: null },
    mergedAt: { type: Date, default: null },
    contributors: { type: [String], default: [] },
    requestedReviewers: { type: [String], default: [] },
    reviews: { type: [reviewSchema], default: [] },
    comments: { type: Number, default: 0 },
    conversationsIssuesCluster: { type: String, default: null },
    version: { type: Number, default: 0 },
  },
  { versionKey: false },
);
// Lists: per space and per organization, filtered by status (and creator…), newest first.
changeRequestSchema.index({ spaceId: 1, number: 1 }, { unique: true });
changeRequestSchema.index({ spaceId: 1, status: 1, createdAt: -1, _id: -1 });
changeRequestSchema.index({ spaceId: 1, status: 1, updatedAt: -1, _id: -1 });
changeRequestSchema.index({ spaceId: 1, createdBy: 1 });
changeRequestSchema.index({ spaceId: 1, contributors: 1 });
changeRequestSchema.index({ spaceId: 1, requestedReviewers: 1 });
changeRequestSchema.index({ spaceId: 1, conversationsIssuesCluster: 1 });

const linkEntrySchema = new Schema<LinkEntryDoc>(
  { pageId: String, status: String, href: String, kind: String, target: { type: String, default: null } },
  { _id: false },
);
const revisionLinksSchema = new Schema<RevisionLinksDoc>(
  { _id: String, spaceId: { type: String, required: true }, links: { type: [linkEntrySchema], default: [] } },
  { versionKey: false },
);
revisionLinksSchema.index({ spaceId: 1 });

declare module '../kernel' {
  interface ContentModels {
    Revision: Model<StoredRevisionDoc>;
    BodyPack: Model<BodyPackDoc>;
    FileBlob: Model<FileBlobDoc>;
    ChangeRequest: Model<ChangeRequestDoc>;
    RevisionLinks: Model<RevisionLinksDoc>;
  }
}

export const revisionModelDefinitions: ModelDefinitions<Pick<ContentModels, 'Revision' | 'BodyPack' | 'FileBlob' | 'ChangeRequest' | 'RevisionLinks'>> = {
  Revision: [revisionSchema, 'revisions'],
  BodyPack: [bodyPackSchema, 'body_packs'],
  FileBlob: [fileBlobSchema, 'file_blobs'],
  ChangeRequest: [changeRequestSchema, 'change_requests'],
  RevisionLinks: [revisionLinksSchema, 'revision_links'],
};

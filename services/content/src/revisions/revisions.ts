import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { declareCache, newId, type LruCache } from '@quire/runtime';
import { httpError } from '@quire/http';
import type { ContentContext } from '../kernel';
import type { BodyPackDoc, FileBlobDoc, RevisionDoc, RevisionFileDoc, RevisionGitDoc, RevisionPageDoc, StoredRevisionDoc } from './revision-store';

/** Key of a page body or a file blob in the content-addressed stores. */
export function contentHash(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

export const EMPTY_BODY_HASH = contentHash('');

/** A page's indexing flags (GitBook's `noIndex`, `noRobotsIndex`): booleans, absent = false. */
export const PAGE_FLAGS = ['noIndex', 'noRobotsIndex'] as const;
export type PageFlag = (typeof PAGE_FLAGS)[number];

/** A flag of `page`: held as present when true, absent when false. */
export const pageFlag = (page: Pick<RevisionPageDoc, PageFlag>, flag: PageFlag): boolean => page[flag] === true;

/** Sets a flag on `page` the one way pages hold it: present when true, absent when false. */
export function setPageFlag(page: RevisionPageDoc, flag: PageFlag, value: boolean | undefined): void {
  if (value) page[flag] = true;
  else delete page[flag];
}

/** Fields a page has only sometimes (git, variables, computed, indexing flags, layout, cover), stored as one optional object. */
type PageExtra = Pick<RevisionPageDoc, 'git' | 'variables' | 'computed' | 'computedSeed' | PageFlag | 'layout' | 'cover'>;
type PageTuple = [string, string | null, string, string, string, string, 0 | 1, string, string, number, number, PageExtra?];

function extraOf(page: RevisionPageDoc): PageExtra | undefined {
  const extra: PageExtra = {};
  if (page.git) extra.git = page.git;
  if (page.variables && Object.keys(page.variables).length > 0) extra.variables = page.variables;
  if (page.computed) extra.computed = page.computed;
  if (page.computedSeed) extra.computedSeed = page.computedSeed;
  for (const flag of PAGE_FLAGS) if (page[flag]) extra[flag] = true;
  if (page.layout && Object.keys(page.layout).length > 0) extra.layout = page.layout;
  if (page.cover) extra.cover = page.cover;
  return Object.keys(extra).length > 0 ? extra : undefined;
}

export function encodePages(pages: readonly RevisionPageDoc[]): Buffer {
  const tuples: PageTuple[] = pages.map((p) => {
    const tuple: PageTuple = [
      p.id,
      p.parent,
      p.title,
      p.slug,
      p.emoji,
      p.description,
      p.hidden ? 1 : 0,
      p.bodyHash,
      p.bodyPack,
      new Date(p.createdAt).getTime(),
      new Date(p.updatedAt).getTime(),
    ];
    const extra = extraOf(p);
    if (extra) tuple.push(extra);
    return tuple;
  });
  return gzipSync(JSON.stringify(tuples), { level: 1 });
}

export function decodePages(data: Buffer): RevisionPageDoc[] {
  const tuples = JSON.parse(gunzipSync(data).toString('utf8')) as PageTuple[];
  return tuples.map(([id, parent, title, slug, emoji, description, hidden, bodyHash, bodyPack, createdAt, updatedAt, extra]) => ({
    id,
    parent,
    title,
    slug,
    emoji,
    description,
    hidden: hidden === 1,
    bodyHash,
    bodyPack,
    createdAt: new Date(createdAt),
    updatedAt: new Date(updatedAt),
    ...extra,
  }));
}

function bufferOf(value: unknown): Buffer {
  if (Buffer.isBuffer(value)) return value;
  const binary = value as { buffer?: ArrayBuffer | Buffer };
  return Buffer.from(binary.buffer as ArrayBuffer);
}

/** Heap of one decoded page of a revision (its object, strings and dates), estimated. */
const PAGE_HEAP_BYTES = 500;

/**
 * Revisions and body packs never change: decoded ones are kept in memory (ctx.caches), a revision
 * weighed by its pages (the default 100 MB hold about 200,000), a pack by its text.
 */
export const revisionCaches = {
  revisions: declareCache<RevisionDoc>(100),
  revisionBodyPacks: declareCache<Map<string, string>>(64),
};

declare module '../kernel' {
  interface ContentCaches {
    revisions: LruCache<RevisionDoc>;
    revisionBodyPacks: LruCache<Map<string, string>>;
  }
}

const revisionWeight = (revision: RevisionDoc) => (revision.pages.length + 1) * PAGE_HEAP_BYTES;

const MAX_PACK_BYTES = 8 * 1024 * 1024;

/**
 * Stores new bodies in packs (one per write, split when large); returns hash → pack id.
 * The empty body is never stored.
 */
export async function storeBodies(ctx: ContentContext, bodies: Map<string, string>): Promise<Map<string, string>> {
  const packs = new Map<string, string>();
  let current: Array<[string, string]> = [];
  let size = 0;
  const docs: BodyPackDoc[] = [];
  const flush = () => {
    if (current.length === 0) return;
    const id = newId();
    docs.push({ _id: id, data: gzipSync(JSON.stringify(current)), count: current.length, size, createdAt: new Date() });
    for (const [hash] of current) packs.set(hash, id);
    ctx.caches.revisionBodyPacks.set(id, new Map(current), size);
    current = [];
    size = 0;
  };
  for (const [hash, markdown] of bodies) {
    if (hash === EMPTY_BODY_HASH) continue;
    if (size > 0 && size + markdown.length > MAX_PACK_BYTES) flush();
    current.push([hash, markdown]);
    size += markdown.length;
  }
  flush();
  if (docs.length > 0) await ctx.models.BodyPack.collection.insertMany(docs as never[], { ordered: false });
  return packs;
}

/** Points pages whose body was just stored at its pack. */
export function assignPacks(pages: RevisionPageDoc[], packs: Map<string, string>): void {
  for (const page of pages) {
    if (page.bodyPack === '' && packs.has(page.bodyHash)) page.bodyPack = packs.get(page.bodyHash) as string;
  }
}

async function loadPack(ctx: ContentContext, id: string): Promise<Map<string, string>> {
  const cached = ctx.caches.revisionBodyPacks.get(id);
  if (cached) return cached;
  const doc = await ctx.models.BodyPack.findById(id).lean<BodyPackDoc>();
  const pairs = doc ? (JSON.parse(gunzipSync(bufferOf(doc.data)).toString('utf8')) as Array<[string, string]>) : [];
  const pack = new Map(pairs);
  ctx.caches.revisionBodyPacks.set(id, pack, doc?.size ?? 0);
  return pack;
}

/** Markdown by hash for the given page references (empty body and unknown read as ''). */
export async function loadBodies(ctx: ContentContext, refs: Iterable<Pick<RevisionPageDoc, 'bodyHash' | 'bodyPack'>>): Promise<Map<string, string>> {
  const wanted = new Map<string, string>();
  for (const ref of refs) if (ref.bodyPack && ref.bodyHash !== EMPTY_BODY_HASH) wanted.set(ref.bodyHash, ref.bodyPack);
  const packIds = [...new Set(wanted.values())];
  const packs = new Map<string, Map<string, string>>();
  // Point reads of packs, a bounded number at a time.
  for (let i = 0; i < packIds.length; i += 32) {
    const slice = packIds.slice(i, i + 32);
    const loaded = await Promise.all(slice.map((id) => loadPack(ctx, id)));
    slice.forEach((id, index) => packs.set(id, loaded[index]));
  }
  const bodies = new Map<string, string>([[EMPTY_BODY_HASH, '']]);
  for (const [hash, pack] of wanted) bodies.set(hash, packs.get(pack)?.get(hash) ?? '');
  return bodies;
}

export async function loadRevision(ctx: ContentContext, revisionId: string): Promise<RevisionDoc> {
  const cached = ctx.caches.revisions.get(revisionId);
  if (cached) return cached;
  const stored = await ctx.models.Revision.findById(revisionId).lean<StoredRevisionDoc>();
  if (!stored) throw httpError.notFound('Revision');
  const { pageData, pageCount, ...rest } = stored;
  void pageCount;
  // Revisions written before the packed form kept their pages as sub-documents.
  const legacy = (stored as unknown as { pages?: RevisionPageDoc[] }).pages;
  const pages = pageData ? decodePages(bufferOf(pageData)) : (legacy ?? []).map((page) => ({ ...page, bodyPack: page.bodyPack ?? '' }));
  const revision: RevisionDoc = { ...rest, files: rest.files ?? [], pages };
  ctx.caches.revisions.set(revisionId, revision, revisionWeight(revision));
  return revision;
}

/** Writes a new immutable revision (its bodies and blobs must be stored first). */
export async function writeRevision(
  ctx: ContentContext,
  input: {
    spaceId: string;
    parents: string[];
    pages: RevisionPageDoc[];
    files: RevisionFileDoc[];
    createdBy: string;
    git?: RevisionGitDoc | null;
    variables?: Record<string, string>;
  },
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
    git: input.git ?? null,
    ...(input.variables && Object.keys(input.variables).length > 0 ? { variables: input.variables } : {}),
  };
  const { pages, ...rest } = revision;
  const stored: StoredRevisionDoc = { ...rest, pageData: encodePages(pages), pageCount: pages.length };
  await ctx.models.Revision.collection.insertOne(stored as never);
  ctx.caches.revisions.set(revision._id, revision, revisionWeight(revision));
  return revision;
}

/** Content of a new revision with the bodies and blobs it may reference that are not stored yet (hash → data). */
export interface BuiltContent {
  pages: RevisionPageDoc[];
  files: RevisionFileDoc[];
  bodies: Map<string, string>;
  blobs: Map<string, Buffer>;
  git?: RevisionGitDoc | null;
  variables?: Record<string, string>;
}

/** Stores the bodies/blobs of `built` and writes it as a revision (not attached to anything yet). */
export async function writeBuiltRevision(ctx: ContentContext, spaceId: string, parents: string[], userId: string, built: BuiltContent): Promise<RevisionDoc> {
  const [packs] = await Promise.all([storeBodies(ctx, built.bodies), storeBlobs(ctx, built.blobs)]);
  assignPacks(built.pages, packs);
  return writeRevision(ctx, { spaceId, parents, pages: built.pages, files: built.files, createdBy: userId, git: built.git, variables: built.variables });
}

/** Forgets a revision that was written but lost its race (it is deleted). */
export async function discardRevision(ctx: ContentContext, revisionId: string): Promise<void> {
  ctx.caches.revisions.delete(revisionId);
  await ctx.models.Revision.deleteOne({ _id: revisionId });
}

/** Stores file bytes by hash; bytes already stored are not written again. */
export async function storeBlobs(ctx: ContentContext, blobs: Map<string, Buffer>): Promise<void> {
  for (const [id, data] of blobs) {
    // One point lookup per file (a batch has few files; FerretDB cannot index $in).
    const exists = await ctx.models.FileBlob.exists({ _id: id });
    if (!exists) await ctx.models.FileBlob.updateOne({ _id: id }, { $setOnInsert: { data, size: data.length } }, { upsert: true });
  }
}

/** A file of a revision (a signed download); 404 when the revision or the file is gone. */
export async function findRevisionFile(ctx: ContentContext, revisionId: string, fileId: string): Promise<RevisionFileDoc> {
  const revision = await loadRevision(ctx, revisionId).catch(() => null);
  const file = revision?.files.find((candidate) => candidate.id === fileId);
  if (!file) throw httpError.notFound('File');
  return file;
}

/** A file's bytes; 404 when its blob is gone. */
export async function loadFileBytes(ctx: ContentContext, file: RevisionFileDoc): Promise<Buffer> {
  const blob = await ctx.models.FileBlob.findById(file.blobHash).lean<FileBlobDoc>();
  if (!blob) throw httpError.notFound('File');
  return Buffer.isBuffer(blob.data) ? blob.data : Buffer.from((blob.data as unknown as { buffer: ArrayBuffer }).buffer);
}

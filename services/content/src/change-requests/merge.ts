import { diff3Merge } from 'node-diff3';
import {
  childrenOf,
  contentHash,
  coverKey,
  duplicateSlugs,
  EMPTY_BODY_HASH,
  flattenTree,
  PAGE_FLAGS,
  PAGE_LAYOUT_OPTIONS,
  pageFlag,
  pageLayoutOf,
  type PageFlag,
  previousSiblings,
  sameLayout,
  setCoverKey,
  setPageFlag,
  setPageLayout,
  treeOf,
  type PageTree,
  type RevisionFileDoc,
  type RevisionPageDoc,
} from '../revisions';

/*
 * Three-way merge of revision contents (design.md §5): `ours` is the side the result is
 * built on (the space for a merge, the change request for an update), `theirs` the side
 * brought in, `base` their common ancestor. Pages merge field by field and structurally
 * (added / removed / moved / retitled); markdown bodies merge line by line, and only for
 * pages whose body hash differs on both sides: cost is O(tree) comparisons of ids and
 * hashes plus O(changed pages) body loads and diffs.
 */

export interface ContentSnapshot {
  pages: readonly RevisionPageDoc[];
  files: readonly RevisionFileDoc[];
}

export interface MergeConflict {
  page?: { id: string; title: string };
  file?: { id: string; name: string };
  reason: string;
}

export type MergeOutcome =
  { ok: true; pages: RevisionPageDoc[]; files: RevisionFileDoc[]; newBodies: Map<string, string> } | { ok: false; conflicts: MergeConflict[] };

/** Loads markdown by hash (only for pages changed on both sides). */
export type BodyLoader = (refs: Array<Pick<RevisionPageDoc, 'bodyHash' | 'bodyPack'>>) => Promise<Map<string, string>>;

const SCALAR_FIELDS = ['title', 'slug', 'emoji', 'description', 'hidden'] as const;
/** A page's indexing flags, merged like the scalar fields (absent = false). */
const flagOf = (page: RevisionPageDoc | undefined, flag: PageFlag) => (page ? pageFlag(page, flag) : undefined);

type Pick3<T> = { value: T } | { conflict: true };

/** Classic three-way pick of one value: whichever side changed it wins; both differently = conflict. */
export function pick3<T>(base: T | undefined, ours: T, theirs: T, hasBase: boolean): Pick3<T> {
  if (ours === theirs) return { value: ours };
  if (hasBase && ours === base) return { value: theirs };
  if (hasBase && theirs === base) return { value: ours };
  return { conflict: true };
}

/** Line-level three-way merge of markdown; null when both sides changed the same lines. */
export function mergeMarkdown(base: string, ours: string, theirs: string): string | null {
  if (ours === theirs) return ours;
  if (ours === base) return theirs;
  if (theirs === base) return ours;
  const regions = diff3Merge(ours.split('\n'), base.split('\n'), theirs.split('\n'), { excludeFalseConflicts: true });
  const lines: string[] = [];
  for (const region of regions) {
    if (region.conflict) return null;
    lines.push(...(region.ok ?? []));
  }
  return lines.join('\n');
}

/** Whether two variables maps hold the same names and values (absent = empty). */
function sameVariables(a: Record<string, string> | undefined, b: Record<string, string> | undefined): boolean {
  const left = Object.entries(a ?? {});
  const right = b ?? {};
  return left.length === Object.keys(right).length && left.every(([name, value]) => Object.hasOwn(right, name) && right[name] === value);
}

/** Whether a side edited the page since the base: an edit there and a delete on the other side is a conflict. */
function contentChanged(base: RevisionPageDoc, side: RevisionPageDoc): boolean {
  return (
    base.bodyHash !== side.bodyHash ||
    SCALAR_FIELDS.some((field) => base[field] !== side[field]) ||
    PAGE_FLAGS.some((flag) => flagOf(base, flag) !== flagOf(side, flag)) ||
    !sameLayout(base, side) ||
    coverKey(base) !== coverKey(side) ||
    !sameVariables(base.variables, side.variables)
  );
}

const pageRef = (page: RevisionPageDoc) => ({ id: page.id, title: page.title });

export async function mergeContent(base: ContentSnapshot, ours: ContentSnapshot, theirs: ContentSnapshot, loadBodies: BodyLoader): Promise<MergeOutcome> {
  const B = treeOf(base.pages);
  const O = treeOf(ours.pages);
  const T = treeOf(theirs.pages);
  const conflicts: MergeConflict[] = [];
  const merged = new Map<string, RevisionPageDoc>();
  const fromTheirs = new Set<string>();
  const bodyJobs: Array<{ id: string; base: string; ours: string; theirs: string; refs: Array<Pick<RevisionPageDoc, 'bodyHash' | 'bodyPack'>> }> = [];
  const prevB = previousSiblings(B);
  const prevO = previousSiblings(O);
  const prevT = previousSiblings(T);

  for (const [id, o] of O.pages) {
    const b = B.pages.get(id);
    const t = T.pages.get(id);
    if (!t) {
      if (!b)
        merged.set(id, o); // added on our side
      else if (contentChanged(b, o)) conflicts.push({ page: pageRef(o), reason: 'edited on one side and deleted on the other' });
      continue; // deleted on their side
    }
    const page: RevisionPageDoc = { ...o };
    for (const field of SCALAR_FIELDS) {
      const picked = pick3<string | boolean>(b?.[field], o[field], t[field], Boolean(b));
      if ('conflict' in picked) conflicts.push({ page: pageRef(o), reason: `${field} changed differently on both sides` });
      else (page as unknown as Record<string, unknown>)[field] = picked.value;
    }
    for (const flag of PAGE_FLAGS) {
      const picked = pick3(flagOf(b, flag), pageFlag(o, flag), pageFlag(t, flag), Boolean(b));
      if ('conflict' in picked) conflicts.push({ page: pageRef(o), reason: `${flag} changed differently on both sides` });
      else setPageFlag(page, flag, picked.value);
    }
    // Layout options merge one by one: a width changed on one side and an outline on the other both stay.
    const [baseLayout, ourLayout, theirLayout] = [b && pageLayoutOf(b), pageLayoutOf(o), pageLayoutOf(t)];
    const layout = { ...ourLayout };
    for (const option of PAGE_LAYOUT_OPTIONS) {
      const picked = pick3<string | boolean>(baseLayout?.[option], ourLayout[option], theirLayout[option], Boolean(b));
      if ('conflict' in picked) conflicts.push({ page: pageRef(o), reason: `layout.${option} changed differently on both sides` });
      else Object.assign(layout, { [option]: picked.value });
    }
    setPageLayout(page, layout);
    const cover = pick3(b && coverKey(b), coverKey(o), coverKey(t), Boolean(b));
    if ('conflict' in cover) conflicts.push({ page: pageRef(o), reason: 'cover changed differently on both sides' });
    else setCoverKey(page, cover.value);
    const parent = pick3(b?.parent, o.parent, t.parent, Boolean(b));
    if ('conflict' in parent) conflicts.push({ page: pageRef(o), reason: 'moved to different places on both sides' });
    else {
      page.parent = parent.value;
      const movedByTheirs = b !== undefined && parent.value !== o.parent;
      const reorderedByTheirs = b !== undefined && parent.value === b.parent && prevT.get(id) !== prevB.get(id) && prevO.get(id) === prevB.get(id);
      if (movedByTheirs || reorderedByTheirs) fromTheirs.add(id);
    }
    if (o.bodyHash !== t.bodyHash) {
      if (b && o.bodyHash === b.bodyHash) {
        page.bodyHash = t.bodyHash;
        page.bodyPack = t.bodyPack;
      } else if (!(b && t.bodyHash === b.bodyHash))
        bodyJobs.push({
          id,
          base: b?.bodyHash ?? EMPTY_BODY_HASH,
          ours: o.bodyHash,
          theirs: t.bodyHash,
          refs: [b ?? { bodyHash: EMPTY_BODY_HASH, bodyPack: '' }, o, t],
        });
    }
    if (t.updatedAt > page.updatedAt) page.updatedAt = t.updatedAt;
    merged.set(id, page);
  }
  for (const [id, t] of T.pages) {
    if (O.pages.has(id)) continue;
    const b = B.pages.get(id);
    if (!b) {
      merged.set(id, t); // added on their side
      fromTheirs.add(id);
    } else if (contentChanged(b, t)) conflicts.push({ page: pageRef(t), reason: 'edited on one side and deleted on the other' });
  }

  const newBodies = new Map<string, string>();
  if (bodyJobs.length > 0) {
    const bodies = await loadBodies(bodyJobs.flatMap((job) => job.refs));
    for (const job of bodyJobs) {
      const text = mergeMarkdown(bodies.get(job.base) ?? '', bodies.get(job.ours) ?? '', bodies.get(job.theirs) ?? '');
      const page = merged.get(job.id) as RevisionPageDoc;
      if (text === null) {
        conflicts.push({ page: pageRef(page), reason: 'the same lines of the page were changed on both sides' });
        continue;
      }
      const hash = contentHash(text);
      newBodies.set(hash, text);
      page.bodyHash = hash;
      page.bodyPack = '';
    }
  }

  const files = mergeFiles(base.files, ours.files, theirs.files, conflicts);
  if (conflicts.length > 0) return { ok: false, conflicts };

  const tree = orderChildren(merged, fromTheirs, O, T, prevT);
  const pages = flattenTree(tree);
  if (pages.length !== merged.size) {
    const reached = new Set(pages.map((page) => page.id));
    for (const page of merged.values()) {
      if (!reached.has(page.id)) conflicts.push({ page: pageRef(page), reason: 'its parent page was deleted or moved under it on the other side' });
    }
  }
  for (const duplicate of duplicateSlugs(tree, tree.children.keys())) {
    for (const id of duplicate.pages)
      conflicts.push({ page: pageRef(merged.get(id) as RevisionPageDoc), reason: `two sibling pages would have the slug "${duplicate.slug}"` });
  }
  if (conflicts.length > 0) return { ok: false, conflicts };
  return { ok: true, pages, files, newBodies };
}

/**
 * Sibling order of the result: our order for pages we placed, then each page placed by
 * their side (added or moved there) goes right after its previous sibling on their side.
 */
function orderChildren(merged: Map<string, RevisionPageDoc>, fromTheirs: Set<string>, O: PageTree, T: PageTree, prevT: Map<string, string | null>): PageTree {
  const children = new Map<string | null, string[]>([[null, []]]);
  for (const [parent, ids] of O.children) {
    const kept = ids.filter((id) => merged.has(id) && !fromTheirs.has(id) && merged.get(id)?.parent === parent);
    if (kept.length > 0) children.set(parent, kept);
  }
  const placeAll = (parentOfT: string | null): void => {
    for (const id of childrenOf(T, parentOfT)) {
      if (fromTheirs.has(id)) {
        const parent = (merged.get(id) as RevisionPageDoc).parent;
        const list = children.get(parent) ?? [];
        let previous = prevT.get(id) ?? null;
        let index = -1;
        while (previous !== null && (index = list.indexOf(previous)) < 0) previous = prevT.get(previous) ?? null;
        list.splice(previous === null ? 0 : index + 1, 0, id);
        children.set(parent, list);
      }
      placeAll(id);
    }
  };
  placeAll(null);
  return { pages: merged, children };
}

function mergeFiles(
  base: readonly RevisionFileDoc[],
  ours: readonly RevisionFileDoc[],
  theirs: readonly RevisionFileDoc[],
  conflicts: MergeConflict[],
): RevisionFileDoc[] {
  const key = (file: RevisionFileDoc | undefined) => (file ? `${file.name}\n${file.contentType}\n${file.blobHash}` : undefined);
  const baseById = new Map(base.map((file) => [file.id, file]));
  const theirsById = new Map(theirs.map((file) => [file.id, file]));
  const oursIds = new Set(ours.map((file) => file.id));
  const out: RevisionFileDoc[] = [];
  for (const o of ours) {
    const b = baseById.get(o.id);
    const t = theirsById.get(o.id);
    if (!t) {
      if (!b) out.push(o);
      else if (key(b) !== key(o)) conflicts.push({ file: { id: o.id, name: o.name }, reason: 'edited on one side and deleted on the other' });
      continue;
    }
    const picked = pick3(key(b), key(o) as string, key(t) as string, Boolean(b));
    if ('conflict' in picked) conflicts.push({ file: { id: o.id, name: o.name }, reason: 'changed differently on both sides' });
    else out.push(picked.value === key(o) ? o : t);
  }
  for (const t of theirs) {
    if (oursIds.has(t.id)) continue;
    const b = baseById.get(t.id);
    if (!b) out.push(t);
    else if (key(b) !== key(t)) conflicts.push({ file: { id: t.id, name: t.name }, reason: 'edited on one side and deleted on the other' });
  }
  return out;
}

import { httpError } from '@quire/http';
import { newId } from '@quire/runtime';
import type { RevisionFileDoc, RevisionPageDoc } from '../db/revisions';
import { childrenOf, descendantsOf, flattenTree, treeOf, type PageTree } from './page-tree';
import { slugify } from '@quire/http';
import { contentHash } from './revisions';

/*
 * An ordered batch of edits applied to a revision's content in memory: either every
 * change applies and the caller writes ONE new revision, or the first bad change is a
 * 400 naming its index and field and nothing is written.
 */

export const MAX_FILE_BYTES = 5 * 1024 * 1024;

export type ContentChange =
  | { type: 'insert_page'; ref?: string; title: string; markdown?: string; slug?: string; emoji?: string; description?: string; hidden?: boolean; into?: string; at?: number }
  | {
      type: 'update_page';
      page: string;
      title?: string;
      slug?: string;
      markdown?: string;
      emoji?: string;
      description?: string;
      hidden?: boolean;
      /** New parent page id; null moves the page to the root. */
      into?: string | null;
      at?: number;
    }
  | { type: 'delete_page'; page: string }
  | { type: 'insert_files'; files: Array<{ ref?: string; name: string; contentType: string; data: string }> };

export type ChangeResult =
  | { type: 'insert_page'; page: string; ref?: string }
  | { type: 'update_page'; page: string } | { type: 'delete_page'; pages: string[] } | { type: 'insert_files'; files: Array<{ ref?: string; id: string }> };

export interface AppliedChanges {
  pages: RevisionPageDoc[];
  files: RevisionFileDoc[];
  bodies: Map<string, string>;
  blobs: Map<string, Buffer>;
  results: ChangeResult[];
}

function invalid(index: number, field: string, message: string): never {
  throw httpError.badRequest(`Invalid body: changes.${index}.${field}: ${message}`);
}

function uniqueSlug(tree: PageTree, parent: string | null, wanted: string, self?: string): string {
  const taken = new Set(childrenOf(tree, parent).filter((id) => id !== self).map((id) => tree.pages.get(id)?.slug));
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n += 1) if (!taken.has(`${wanted}-${n}`)) return `${wanted}-${n}`;
}

function place(tree: PageTree, parent: string | null, id: string, at: number | undefined): void {
  const siblings = [...childrenOf(tree, parent)];
  siblings.splice(at === undefined ? siblings.length : Math.min(at, siblings.length), 0, id);
  tree.children.set(parent, siblings);
}

function unplace(tree: PageTree, parent: string | null, id: string): void {
  tree.children.set(
    parent,
    childrenOf(tree, parent).filter((sibling) => sibling !== id),
  );
}

export function applyChanges(content: { pages: readonly RevisionPageDoc[]; files: readonly RevisionFileDoc[] }, changes: ContentChange[], now = new Date()): AppliedChanges {
  const tree = treeOf(content.pages);
  const files = [...content.files];
  const bodies = new Map<string, string>();
  const blobs = new Map<string, Buffer>();
  const results: ChangeResult[] = [];
  const requirePage = (index: number, field: string, id: string): RevisionPageDoc => tree.pages.get(id) ?? invalid(index, field, `no page ${id} in this content`);
  const setBody = (markdown: string): string => {
    const hash = contentHash(markdown);
    bodies.set(hash, markdown);
    return hash;
  };

  // Batch-local refs of inserted pages: a later change may name its parent by ref.
  const refs = new Map<string, string>();
  const resolve = (id: string) => refs.get(id) ?? id;

  changes.forEach((change, index) => {
    switch (change.type) {
      case 'insert_page': {
        if (change.ref !== undefined && refs.has(change.ref)) invalid(index, 'ref', `the ref "${change.ref}" is used twice in this batch`);
        const parent = change.into === undefined ? null : resolve(change.into);
        if (parent !== null) requirePage(index, 'into', parent);
        const wanted = change.slug ?? slugify(change.title, { fallback: 'page' });
        if (change.slug !== undefined && uniqueSlug(tree, parent, wanted) !== wanted) invalid(index, 'slug', `a sibling page already has the slug "${wanted}"`);
        const page: RevisionPageDoc = {
          id: newId(),
          parent,
          title: change.title,
          slug: uniqueSlug(tree, parent, wanted),
          emoji: change.emoji ?? '',
          description: change.description ?? '',
          hidden: change.hidden ?? false,
          bodyHash: setBody(change.markdown ?? ''),
          bodyPack: '',
          createdAt: now,
          updatedAt: now,
        };
        tree.pages.set(page.id, page);
        place(tree, parent, page.id, change.at);
        if (change.ref !== undefined) refs.set(change.ref, page.id);
        results.push(change.ref === undefined ? { type: 'insert_page', page: page.id } : { type: 'insert_page', page: page.id, ref: change.ref });
        return;
      }
      case 'update_page': {
        const current = requirePage(index, 'page', resolve(change.page));
        const page: RevisionPageDoc = { ...current, updatedAt: now };
        if (change.title !== undefined) page.title = change.title;
        if (change.emoji !== undefined) page.emoji = change.emoji;
        if (change.description !== undefined) page.description = change.description;
        if (change.hidden !== undefined) page.hidden = change.hidden;
        if (change.markdown !== undefined && contentHash(change.markdown) !== current.bodyHash) {
          page.bodyHash = setBody(change.markdown);
          page.bodyPack = '';
        }
        const parent = change.into === undefined ? current.parent : change.into === null ? null : resolve(change.into);
        if (parent !== null && parent !== current.parent) {
          requirePage(index, 'into', parent);
          if (parent === current.id || descendantsOf(tree, current.id).includes(parent)) invalid(index, 'into', 'a page cannot move under itself');
        }
        page.parent = parent;
        if (change.slug !== undefined && uniqueSlug(tree, parent, change.slug, current.id) !== change.slug) invalid(index, 'slug', `a sibling page already has the slug "${change.slug}"`);
        if (change.slug !== undefined) page.slug = change.slug;
        else if (parent !== current.parent) page.slug = uniqueSlug(tree, parent, current.slug, current.id);
        if (parent !== current.parent || change.at !== undefined) {
          unplace(tree, current.parent, current.id);
          place(tree, parent, current.id, change.at);
        }
        tree.pages.set(page.id, page);
        results.push({ type: 'update_page', page: page.id });
        return;
      }
      case 'delete_page': {
        const page = requirePage(index, 'page', resolve(change.page));
        const removed = [page.id, ...descendantsOf(tree, page.id)];
        unplace(tree, page.parent, page.id);
        for (const id of removed) {
          tree.pages.delete(id);
          tree.children.delete(id);
        }
        results.push({ type: 'delete_page', pages: removed });
        return;
      }
      case 'insert_files': {
        const inserted: Array<{ ref?: string; id: string }> = [];
        change.files.forEach((file, fileIndex) => {
          const data = Buffer.from(file.data, 'base64');
          if (data.length > MAX_FILE_BYTES) invalid(index, `files.${fileIndex}.data`, `larger than ${MAX_FILE_BYTES} bytes`);
          const blobHash = contentHash(data);
          blobs.set(blobHash, data);
          const id = newId();
          files.push({ id, name: file.name, contentType: file.contentType, size: data.length, blobHash });
          inserted.push(file.ref === undefined ? { id } : { ref: file.ref, id });
        });
        results.push({ type: 'insert_files', files: inserted });
        return;
      }
    }
  });
  return { pages: flattenTree(tree), files, bodies, blobs, results };
}

import type { PageLayout } from '@quire/contract';
import { httpError } from '@quire/http';
import { newId } from '@quire/runtime';
import type { CoverImage, PageComputedSource, PageCover, RevisionFileDoc, RevisionPageDoc } from './revision-store';
import { childrenOf, descendantsOf, flattenTree, treeOf, type PageTree } from './page-tree';
import { slugify } from '@quire/http';
import { setCover } from './page-cover';
import { pageLayoutOf, setPageLayout } from './page-layout';
import { contentHash, PAGE_FLAGS, setPageFlag } from './revisions';

/*
 * An ordered batch of edits applied to a revision's content in memory: either every
 * change applies and the caller writes ONE new revision, or the first bad change is a
 * 400 naming its index and field and nothing is written.
 */

export const MAX_FILE_BYTES = 5 * 1024 * 1024;

/** Limits of a variables map (page or space), enforced here so every writer obeys them. */
// `__proto__` would be dropped by every JSON object it passes through, and expressions never read
// `__proto__`, `constructor` or `prototype` (expressions.ts): such names are refused, not lost.
export const VARIABLE_NAME = /^(?!(?:__proto__|constructor|prototype)$)[A-Za-z_][A-Za-z0-9_]*$/;
export const VARIABLE_NAME_RULE = 'a variable name is a letter or _ then letters, digits or _, other than __proto__, constructor and prototype';
export const MAX_VARIABLE_NAME = 64;
// GitBook's VariableValue allows 256 characters: longer values would break its clients.
export const MAX_VARIABLE_VALUE = 256;
export const MAX_VARIABLES = 100;

export type ContentChange =
  | {
      type: 'insert_page';
      ref?: string;
      title: string;
      markdown?: string;
      slug?: string;
      emoji?: string;
      description?: string;
      hidden?: boolean;
      /** GitBook's indexing flags (absent: false). */
      noIndex?: boolean;
      noRobotsIndex?: boolean;
      into?: string;
      at?: number;
      variables?: Record<string, string>;
      /** Generated pages (templates only; not accepted from API callers): the stored body stays empty. */
      computed?: PageComputedSource;
    }
  | {
      type: 'update_page';
      page: string;
      title?: string;
      slug?: string;
      markdown?: string;
      emoji?: string;
      description?: string;
      hidden?: boolean;
      /** GitBook's indexing flags (absent: kept as the page has them). */
      noIndex?: boolean;
      noRobotsIndex?: boolean;
      /** Layout options to change (GitBook's page layout); an option not given is kept as the page has it. */
      layout?: Partial<PageLayout>;
      /** The page's cover: an image file of the content (its id, or the ref of a file this batch inserts) or an address; null removes it. */
      cover?: PageCover | null;
      /** New parent page id; null moves the page to the root. */
      into?: string | null;
      at?: number;
      /** Replaces the page's variables. */
      variables?: Record<string, string>;
    }
  | { type: 'delete_page'; page: string }
  | { type: 'insert_files'; files: Array<{ ref?: string; name: string; contentType: string; data: string }> }
  /** The revision's (space) variables: merged into the current ones (null removes a name), or replacing them all. */
  | { type: 'update_variables'; variables: Record<string, string | null>; replace?: boolean };

export type ChangeResult =
  | { type: 'insert_page'; page: string; ref?: string }
  | { type: 'update_page'; page: string }
  | { type: 'delete_page'; pages: string[] }
  | { type: 'insert_files'; files: Array<{ ref?: string; id: string }> };

export interface AppliedChanges {
  pages: RevisionPageDoc[];
  files: RevisionFileDoc[];
  bodies: Map<string, string>;
  blobs: Map<string, Buffer>;
  results: ChangeResult[];
  /** The revision's variables after the batch. */
  variables: Record<string, string>;
}

export interface ContentState {
  pages: readonly RevisionPageDoc[];
  files: readonly RevisionFileDoc[];
  variables?: Record<string, string>;
}

function invalid(index: number, field: string, message: string): never {
  throw httpError.badRequest(`Invalid body: changes.${index}.${field}: ${message}`);
}

/** `wanted`, or `wanted-2`, `wanted-3`… : the first slug no other child of `parent` in `tree` has (`self` excepted). */
export function uniqueSlug(tree: PageTree, parent: string | null, wanted: string, self?: string): string {
  const taken = new Set(
    childrenOf(tree, parent)
      .filter((id) => id !== self)
      .map((id) => tree.pages.get(id)?.slug),
  );
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

/** 400 naming `changes.<index>.<field>` unless `variables` obeys the limits (the request schemas check them too). */
function checkVariables(index: number, field: string, variables: Record<string, unknown>): void {
  const names = Object.keys(variables);
  if (names.length > MAX_VARIABLES) invalid(index, field, `at most ${MAX_VARIABLES} variables`);
  for (const name of names) {
    if (name.length > MAX_VARIABLE_NAME || !VARIABLE_NAME.test(name))
      invalid(index, `${field}.${name}`, `${VARIABLE_NAME_RULE} (at most ${MAX_VARIABLE_NAME} characters)`);
    const value = variables[name];
    if (typeof value === 'string' && value.length > MAX_VARIABLE_VALUE) invalid(index, `${field}.${name}`, `at most ${MAX_VARIABLE_VALUE} characters`);
  }
}

export function applyChanges(content: ContentState, changes: ContentChange[], now = new Date()): AppliedChanges {
  const tree = treeOf(content.pages);
  const files = [...content.files];
  let variables: Record<string, string> = { ...content.variables };
  const bodies = new Map<string, string>();
  const blobs = new Map<string, Buffer>();
  const results: ChangeResult[] = [];
  const requirePage = (index: number, field: string, id: string): RevisionPageDoc =>
    tree.pages.get(id) ?? invalid(index, field, `no page ${id} in this content`);
  /** An image of a cover as the page holds it: 400 naming `changes.<index>.cover.<field>.file` unless it names an image of the content. */
  const coverImageOf = (index: number, field: 'ref' | 'refDark', image: CoverImage): CoverImage => {
    if (image.kind === 'url') return { kind: 'url', url: image.url };
    const fileId = fileRefs.get(image.file) ?? image.file;
    const file = files.find((candidate) => candidate.id === fileId);
    if (!file) invalid(index, `cover.${field}.file`, `no file ${image.file} in this content`);
    if (!file.contentType.startsWith('image/')) invalid(index, `cover.${field}.file`, `the file ${image.file} is not an image (${file.contentType})`);
    return { kind: 'file', file: fileId };
  };
  const coverOf = (index: number, cover: PageCover): PageCover => ({
    ref: coverImageOf(index, 'ref', cover.ref),
    yPos: cover.yPos,
    ...(cover.refDark ? { refDark: coverImageOf(index, 'refDark', cover.refDark) } : {}),
  });
  const setBody = (markdown: string): string => {
    const hash = contentHash(markdown);
    bodies.set(hash, markdown);
    return hash;
  };

  // Batch-local refs of inserted pages: a later change may name its parent by ref.
  const refs = new Map<string, string>();
  // And of inserted files: a later change may name a page's cover by ref.
  const fileRefs = new Map<string, string>();
  const resolve = (id: string) => refs.get(id) ?? id;

  changes.forEach((change, index) => {
    switch (change.type) {
      case 'insert_page': {
        if (change.ref !== undefined && refs.has(change.ref)) invalid(index, 'ref', `the ref "${change.ref}" is used twice in this batch`);
        const parent = change.into === undefined ? null : resolve(change.into);
        if (parent !== null) requirePage(index, 'into', parent);
        const wanted = change.slug ?? slugify(change.title, { fallback: 'page' });
        if (change.slug !== undefined && uniqueSlug(tree, parent, wanted) !== wanted) invalid(index, 'slug', `a sibling page already has the slug "${wanted}"`);
        if (change.variables) checkVariables(index, 'variables', change.variables);
        const page: RevisionPageDoc = {
          id: newId(),
          parent,
          title: change.title,
          slug: uniqueSlug(tree, parent, wanted),
          emoji: change.emoji ?? '',
          description: change.description ?? '',
          hidden: change.hidden ?? false,
          // A computed page's body is generated when read: nothing is stored.
          bodyHash: setBody(change.computed ? '' : (change.markdown ?? '')),
          bodyPack: '',
          createdAt: now,
          updatedAt: now,
        };
        for (const flag of PAGE_FLAGS) setPageFlag(page, flag, change[flag]);
        if (change.variables && Object.keys(change.variables).length > 0) page.variables = { ...change.variables };
        if (change.computed) {
          page.computed = change.computed;
          page.computedSeed = page.id;
        }
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
        for (const flag of PAGE_FLAGS) if (change[flag] !== undefined) setPageFlag(page, flag, change[flag]);
        if (change.layout) setPageLayout(page, { ...pageLayoutOf(current), ...change.layout });
        if (change.cover === null) delete page.cover;
        else if (change.cover) setCover(page, coverOf(index, change.cover), change.layout?.cover !== undefined);
        if (change.variables !== undefined) {
          checkVariables(index, 'variables', change.variables);
          if (Object.keys(change.variables).length > 0) page.variables = { ...change.variables };
          else delete page.variables;
        }
        if (change.markdown !== undefined && current.computed) invalid(index, 'markdown', 'the page is generated (computed): its markdown cannot be set');
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
        if (change.slug !== undefined && uniqueSlug(tree, parent, change.slug, current.id) !== change.slug)
          invalid(index, 'slug', `a sibling page already has the slug "${change.slug}"`);
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
          if (file.ref !== undefined) fileRefs.set(file.ref, id);
        });
        results.push({ type: 'insert_files', files: inserted });
        return;
      }
      case 'update_variables': {
        const next: Record<string, string | null> = change.replace ? {} : { ...variables };
        for (const [name, value] of Object.entries(change.variables)) next[name] = value;
        const kept = Object.fromEntries(Object.entries(next).filter((entry): entry is [string, string] => entry[1] !== null));
        checkVariables(index, 'variables', kept);
        // No result: results report pages and files (OpenAPI ChangeRequestContentUpdate).
        variables = kept;
        return;
      }
    }
  });
  return { pages: flattenTree(tree), files, bodies, blobs, results, variables };
}

import type { PageLayout } from '@quire/contract';
import { httpError, slugify } from '@quire/http';
import { uniqueSlug } from './content-changes';
import { childrenOf, flattenTree, type PageTree } from './page-tree';
import { sameLayout, setPageLayout } from './page-layout';
import type { RevisionDoc, RevisionPageDoc } from './revision-store';
import { contentHash, EMPTY_BODY_HASH, PAGE_FLAGS, pageFlag, setPageFlag } from './revisions';

/*
 * A whole page tree written by another service (WriteSpacePages: a translation): some
 * pages with their new content, the others kept as the space has them, the unlisted ones
 * gone. Pure: the caller writes the result as one revision, or nothing when it changed nothing.
 */

/** The new content of a written page (`slug` '' = made from the title). */
export interface PageContentWrite {
  title: string;
  description: string;
  body: string;
  slug: string;
  emoji: string;
  hidden: boolean;
  /** Indexing flags; absent: the page keeps the ones it has (a new page: false). */
  noIndex?: boolean;
  noRobotsIndex?: boolean;
  /** The whole layout; absent: the page keeps the one it has (a new page: the defaults). */
  layout?: PageLayout;
}

/** One page of the tree, listed after its parent: with its new content, or without (kept as it is). */
export interface PageWriteInput {
  id: string;
  parent: string | null;
  content?: PageContentWrite;
}

export interface WrittenPages {
  /** The new tree in pre-order; pages that did not change are the current revision's own objects. */
  pages: RevisionPageDoc[];
  /** Bodies the new tree references that no page of the current revision has stored (hash → markdown). */
  bodies: Map<string, string>;
  /** False when the tree is the current one, page for page and in the same order. */
  changed: boolean;
}

function invalid(index: number, field: string, message: string): never {
  throw httpError.badRequest(`Invalid argument: pages.${index}.${field}: ${message}`);
}

/** `page` with the `changes` that differ from it (and a new updatedAt), or `page` itself when none does. */
function withChanges(page: RevisionPageDoc, changes: Partial<RevisionPageDoc>, now: Date): RevisionPageDoc {
  const differs = (Object.keys(changes) as Array<keyof RevisionPageDoc>).some((field) => changes[field] !== page[field]);
  return differs ? { ...page, ...changes, updatedAt: now } : page;
}

/** `page` with the indexing flags and layout `content` gives (what it does not give kept), or `page` itself when they are its own. */
function withFlagsAndLayout(page: RevisionPageDoc, content: PageContentWrite, now: Date): RevisionPageDoc {
  const changed = PAGE_FLAGS.filter((flag) => content[flag] !== undefined && content[flag] !== pageFlag(page, flag));
  const layout = content.layout && !sameLayout(page, { layout: content.layout }) ? content.layout : undefined;
  if (changed.length === 0 && !layout) return page;
  const next = { ...page, updatedAt: now };
  for (const flag of changed) setPageFlag(next, flag, content[flag]);
  if (layout) setPageLayout(next, layout);
  return next;
}

/**
 * Builds the tree `writes` describes over `current`. 400 naming `pages.<index>.<field>` for
 * an empty or repeated id, a parent not listed before its child, or a page without content
 * that `current` does not have. Pages without content keep everything they have (title,
 * body, slug, indexing flags, layout, variables, computed source…) but their place; pages
 * with content take the given title, description, body, emoji, hidden flag and slug (else
 * one made from the title), and the indexing flags and layout given (one not given is kept,
 * false or the defaults on a new page); slugs are made unique among siblings, kept pages
 * claiming theirs first. Computed pages keep their generated body: a body written for one
 * is ignored.
 */
export function buildWrittenPages(current: RevisionDoc, writes: readonly PageWriteInput[], now = new Date()): WrittenPages {
  const existing = new Map(current.pages.map((page) => [page.id, page]));
  const tree: PageTree = { pages: new Map(), children: new Map([[null, []]]) };
  writes.forEach((write, index) => {
    if (!write.id) invalid(index, 'id', 'required');
    if (tree.children.has(write.id)) invalid(index, 'id', `page ${write.id} is listed twice`);
    if (write.parent !== null && !tree.children.has(write.parent)) invalid(index, 'parent_id', `no page ${write.parent} listed before this one`);
    if (!write.content && !existing.has(write.id)) invalid(index, 'has_content', `the space has no page ${write.id}: give its content`);
    tree.children.set(write.id, []);
    childrenOf(tree, write.parent).push(write.id);
  });

  // Kept pages first: their slugs stay unless two of them now share a parent and a slug.
  for (const write of writes) {
    if (write.content) continue;
    const page = existing.get(write.id) as RevisionPageDoc;
    const slug = uniqueSlug(tree, write.parent, page.slug, page.id);
    tree.pages.set(page.id, withChanges(page, { parent: write.parent, slug }, now));
  }

  // Bodies some page of the current revision already stored are referenced, not stored again.
  const storedPacks = new Map(current.pages.filter((page) => page.bodyPack).map((page) => [page.bodyHash, page.bodyPack]));
  const bodies = new Map<string, string>();
  for (const write of writes) {
    const content = write.content;
    if (!content) continue;
    const before = existing.get(write.id);
    const slug = uniqueSlug(tree, write.parent, content.slug || slugify(content.title, { fallback: 'page' }), write.id);
    const fields = { parent: write.parent, title: content.title, description: content.description, slug, emoji: content.emoji, hidden: content.hidden };
    if (before?.computed) {
      tree.pages.set(write.id, withFlagsAndLayout(withChanges(before, fields, now), content, now));
      continue;
    }
    const bodyHash = contentHash(content.body);
    const bodyPack = bodyHash === before?.bodyHash ? before.bodyPack : (storedPacks.get(bodyHash) ?? '');
    if (!bodyPack && bodyHash !== EMPTY_BODY_HASH) bodies.set(bodyHash, content.body);
    const page = before
      ? withChanges(before, { ...fields, bodyHash, bodyPack }, now)
      : { id: write.id, ...fields, bodyHash, bodyPack, createdAt: now, updatedAt: now };
    tree.pages.set(write.id, withFlagsAndLayout(page, content, now));
  }

  const pages = flattenTree(tree);
  const changed = pages.length !== current.pages.length || pages.some((page, index) => page !== current.pages[index]);
  return { pages, bodies, changed };
}

import type { RevisionPageDoc } from './revision-store';

/*
 * A revision's pages are stored flat in pre-order with parent pointers. These pure
 * helpers turn that list into a tree (page by id, ordered children by parent) and back.
 */

export interface PageTree {
  pages: Map<string, RevisionPageDoc>;
  /** Ordered child ids by parent id (null = the space's root). */
  children: Map<string | null, string[]>;
}

export function treeOf(pages: readonly RevisionPageDoc[]): PageTree {
  const tree: PageTree = { pages: new Map(), children: new Map([[null, []]]) };
  for (const page of pages) {
    tree.pages.set(page.id, page);
    const siblings = tree.children.get(page.parent) ?? [];
    siblings.push(page.id);
    tree.children.set(page.parent, siblings);
  }
  return tree;
}

export function childrenOf(tree: PageTree, parent: string | null): string[] {
  return tree.children.get(parent) ?? [];
}

/** The pages in pre-order (the stored form). Pages unreachable from the root are dropped. */
export function flattenTree(tree: PageTree): RevisionPageDoc[] {
  const out: RevisionPageDoc[] = [];
  const visit = (parent: string | null): void => {
    for (const id of childrenOf(tree, parent)) {
      const page = tree.pages.get(id);
      if (!page) continue;
      out.push(page.parent === parent ? page : { ...page, parent });
      visit(id);
    }
  };
  visit(null);
  return out;
}

/** Every page id under `id` (not including it). */
export function descendantsOf(tree: PageTree, id: string): string[] {
  const out: string[] = [];
  const stack = [...childrenOf(tree, id)];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    out.push(next);
    stack.push(...childrenOf(tree, next));
  }
  return out;
}

/** Page id → its path in the revision ("guides/getting-started"): slugs joined from the root. */
export function pagePaths(pages: readonly RevisionPageDoc[]): Map<string, string> {
  const paths = new Map<string, string>();
  // Pre-order guarantees a parent's path is known before its children's.
  for (const page of pages) {
    const parentPath = page.parent ? paths.get(page.parent) : undefined;
    paths.set(page.id, parentPath ? `${parentPath}/${page.slug}` : page.slug);
  }
  return paths;
}

/** Path → page id (the first page wins if two share a path). */
export function pagesByPath(pages: readonly RevisionPageDoc[]): Map<string, string> {
  const byPath = new Map<string, string>();
  for (const [id, path] of pagePaths(pages)) if (!byPath.has(path)) byPath.set(path, id);
  return byPath;
}

/** Ids of sibling groups where two pages share a slug (their paths would collide). */
export function duplicateSlugs(tree: PageTree, parents: Iterable<string | null>): Array<{ parent: string | null; slug: string; pages: string[] }> {
  const out: Array<{ parent: string | null; slug: string; pages: string[] }> = [];
  for (const parent of new Set(parents)) {
    const bySlug = new Map<string, string[]>();
    for (const id of childrenOf(tree, parent)) {
      const slug = tree.pages.get(id)?.slug ?? '';
      bySlug.set(slug, [...(bySlug.get(slug) ?? []), id]);
    }
    for (const [slug, ids] of bySlug) if (ids.length > 1) out.push({ parent, slug, pages: ids });
  }
  return out;
}

/** Page id → the id of the sibling just before it under its parent (null when first). */
export function previousSiblings(tree: PageTree): Map<string, string | null> {
  const previous = new Map<string, string | null>();
  for (const siblings of tree.children.values()) siblings.forEach((id, index) => previous.set(id, index > 0 ? siblings[index - 1] : null));
  return previous;
}

import { DEFAULT_PAGE_LAYOUT, type PageLayout } from '@quire/contract';
import type { RevisionPageDoc } from './revision-store';

/*
 * A page's layout (spec "Page" `layout`, GitBook's RevisionPageLayoutOptions): how wide its
 * content is and which of its parts a published site shows. A page holds only the options that
 * differ from DEFAULT_PAGE_LAYOUT, and nothing when none does (setPageLayout): revisions
 * written before layouts read as the defaults, and pages compare alike whichever way they
 * were written.
 */

export type PageLayoutOption = keyof PageLayout;
export const PAGE_LAYOUT_OPTIONS = Object.keys(DEFAULT_PAGE_LAYOUT) as PageLayoutOption[];

/** The page's whole layout: the options it holds over the defaults. */
export function pageLayoutOf(page: Pick<RevisionPageDoc, 'layout'>): PageLayout {
  return { ...DEFAULT_PAGE_LAYOUT, ...page.layout };
}

/** Gives `page` the layout `options` describe (an option not given is the default's), held the one way pages hold it. */
export function setPageLayout(page: RevisionPageDoc, options: Partial<PageLayout>): void {
  const held = PAGE_LAYOUT_OPTIONS.filter((option) => options[option] !== undefined && options[option] !== DEFAULT_PAGE_LAYOUT[option]);
  if (held.length > 0) page.layout = Object.fromEntries(held.map((option) => [option, options[option]]));
  else delete page.layout;
}

/** Whether two pages have the same layout, whichever way they hold it. */
export function sameLayout(a: Pick<RevisionPageDoc, 'layout'>, b: Pick<RevisionPageDoc, 'layout'>): boolean {
  const [left, right] = [pageLayoutOf(a), pageLayoutOf(b)];
  return PAGE_LAYOUT_OPTIONS.every((option) => left[option] === right[option]);
}

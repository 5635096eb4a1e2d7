import { pageLayoutOf, setPageLayout } from './page-layout';
import type { PageCover, RevisionPageDoc } from './revision-store';

/*
 * A page's cover image (spec "Page" `cover`, GitBook's RevisionPageDocumentCover): a file of the
 * revision or an http(s) address, with its vertical position. Whether a published page shows it,
 * and how large, is its layout's (`cover`, `coverSize`).
 */

/** The cover as one comparable value ('' for none): what merges and imports compare. */
export function coverKey(page: Pick<RevisionPageDoc, 'cover'>): string {
  const cover = page.cover;
  if (!cover) return '';
  return JSON.stringify([cover.ref.kind, cover.ref.kind === 'file' ? cover.ref.file : cover.ref.url, cover.yPos]);
}

/** Gives `page` the cover `key` describes (coverKey's form; '' removes it). */
export function setCoverKey(page: RevisionPageDoc, key: string): void {
  if (!key) {
    delete page.cover;
    return;
  }
  const [kind, target, yPos] = JSON.parse(key) as ['file' | 'url', string, number];
  page.cover = { ref: kind === 'file' ? { kind, file: target } : { kind, url: target }, yPos };
}

/** Gives `page` its cover, which shows unless the same change (or file) said whether it does (`said`). */
export function setCover(page: RevisionPageDoc, cover: PageCover, said: boolean): void {
  page.cover = cover;
  if (!said) setPageLayout(page, { ...pageLayoutOf(page), cover: true });
}

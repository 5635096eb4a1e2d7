import { pageLayoutOf, setPageLayout } from './page-layout';
import type { CoverImage, PageCover, RevisionPageDoc } from './revision-store';

/*
 * A page's cover image (spec "Page" `cover`, GitBook's RevisionPageDocumentCover): a file of the
 * revision or an http(s) address, with its vertical position, and optionally another for dark
 * themes (`refDark`). Whether a published page shows it, and how large, is its layout's (`cover`,
 * `coverSize`).
 */

const imageKey = (image: CoverImage | undefined) => (image ? [image.kind, image.kind === 'file' ? image.file : image.url] : null);
const imageOf = (key: [CoverImage['kind'], string] | null): CoverImage | undefined =>
  key ? (key[0] === 'file' ? { kind: 'file', file: key[1] } : { kind: 'url', url: key[1] }) : undefined;

/** The cover as one comparable value ('' for none): what merges and imports compare. */
export function coverKey(page: Pick<RevisionPageDoc, 'cover'>): string {
  const cover = page.cover;
  return cover ? JSON.stringify([imageKey(cover.ref), cover.yPos, imageKey(cover.refDark)]) : '';
}

/** Gives `page` the cover `key` describes (coverKey's form; '' removes it). */
export function setCoverKey(page: RevisionPageDoc, key: string): void {
  if (!key) {
    delete page.cover;
    return;
  }
  const [ref, yPos, dark] = JSON.parse(key) as [[CoverImage['kind'], string], number, [CoverImage['kind'], string] | null];
  const refDark = imageOf(dark);
  page.cover = { ref: imageOf(ref) as CoverImage, yPos, ...(refDark ? { refDark } : {}) };
}

/** Gives `page` its cover, which shows unless the same change (or file) said whether it does (`said`). */
export function setCover(page: RevisionPageDoc, cover: PageCover, said: boolean): void {
  page.cover = cover;
  if (!said) setPageLayout(page, { ...pageLayoutOf(page), cover: true });
}

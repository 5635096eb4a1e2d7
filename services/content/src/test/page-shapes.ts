import assert from 'node:assert/strict';
import { assertMatchesOpenApi } from '@quire/testkit';

/**
 * GitBook's RevisionPageDocument ends with oneOf [{computed, computedSeed} (required), {documentId?}]:
 * the second member matches every object, so no computed page passes a strict oneOf. A
 * computed page is checked as its source (ComputedContentSourceDocument) plus the page without it.
 */
const withoutComputed = (page: any): any => {
  const { computed, computedSeed, ...rest } = page;
  if (computed !== undefined) {
    assertMatchesOpenApi('ComputedContentSourceDocument', computed);
    assert.equal(typeof computedSeed, 'string');
    assert.equal(rest.documentId, undefined);
  }
  return { ...rest, pages: (rest.pages ?? []).map(withoutComputed) };
};
export const assertPageShape = (page: any): void => assertMatchesOpenApi('RevisionPageDocument', withoutComputed(page));
export const assertRevisionShape = (revision: any): void => assertMatchesOpenApi('Revision', { ...revision, pages: revision.pages.map(withoutComputed) });

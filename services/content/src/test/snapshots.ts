import assert from 'node:assert/strict';
import { mergeContent, type ContentSnapshot } from '../change-requests/merge';
import { applyChanges, type ContentChange } from '../revisions';

/** Content snapshots for the pure engines' tests (content changes, three-way merge): bodies kept by hash, as the store would. */

export const bodies = new Map<string, string>();
export const loader = async (refs: Array<{ bodyHash: string }>) => new Map(refs.map(({ bodyHash }) => [bodyHash, bodies.get(bodyHash) ?? '']));

export function apply(content: ContentSnapshot, changes: ContentChange[]): ContentSnapshot & { results: ReturnType<typeof applyChanges>['results'] } {
  const applied = applyChanges(content, changes);
  for (const [hash, markdown] of applied.bodies) bodies.set(hash, markdown);
  return { pages: applied.pages, files: applied.files, results: applied.results };
}

export const empty: ContentSnapshot = { pages: [], files: [] };
export const titles = (content: ContentSnapshot) => content.pages.map((page) => page.title);
export const bodyOf = (content: ContentSnapshot, id: string) => bodies.get(content.pages.find((page) => page.id === id)?.bodyHash ?? '') ?? '';

export async function merged(base: ContentSnapshot, ours: ContentSnapshot, theirs: ContentSnapshot): Promise<ContentSnapshot> {
  const outcome = await mergeContent(base, ours, theirs, loader);
  if (!outcome.ok) assert.fail(`unexpected conflicts: ${JSON.stringify(outcome.conflicts)}`);
  for (const [hash, markdown] of outcome.newBodies) bodies.set(hash, markdown);
  return outcome;
}

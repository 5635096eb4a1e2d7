import type { Connection } from 'mongoose';

// Owned by the revisions work (revisions, page bodies, files, change requests): models arrive with it.
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface RevisionModels {}

export function registerRevisionModels(_db: Connection): void {}

export function revisionModelsOf(_db: Connection): RevisionModels {
  return {};
}

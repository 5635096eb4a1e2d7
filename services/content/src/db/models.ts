import type { Connection } from 'mongoose';
import { registerRevisionModels, revisionModelsOf, type RevisionModels } from './revisions';
import { registerStructureModels, structureModelsOf, type StructureModels } from './structure';

export type ContentModels = StructureModels & RevisionModels;

export function registerModels(db: Connection): void {
  registerStructureModels(db);
  registerRevisionModels(db);
}

export function modelsOf(db: Connection): ContentModels {
  return { ...structureModelsOf(db), ...revisionModelsOf(db) };
}

import { defineModels } from '@quire/runtime';
import { revisionModelDefinitions, type RevisionModels } from './revisions';
import { structureModelDefinitions, type StructureModels } from './structure';

export type ContentModels = StructureModels & RevisionModels;

const contentModels = defineModels<ContentModels>({ ...structureModelDefinitions, ...revisionModelDefinitions });

export const registerModels = contentModels.register;
export const modelsOf = contentModels.of;

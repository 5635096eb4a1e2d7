import { defineModels } from '@quire/runtime';
import { commentsModelDefinitions, type CommentModels } from './comments';
import { gitModelDefinitions, type GitSyncModels } from './git';
import { revisionModelDefinitions, type RevisionModels } from './revisions';
import { searchModelDefinitions, type SearchIndexModels } from './search';
import { structureModelDefinitions, type StructureModels } from './structure';

export type ContentModels = StructureModels & RevisionModels & CommentModels & GitSyncModels & SearchIndexModels;

const contentModels = defineModels<ContentModels>({
  ...structureModelDefinitions,
  ...revisionModelDefinitions,
  ...commentsModelDefinitions,
  ...gitModelDefinitions,
  ...searchModelDefinitions,
});

export const registerModels = contentModels.register;
export const modelsOf = contentModels.of;

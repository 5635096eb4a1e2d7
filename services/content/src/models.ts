import { defineModels } from '@quire/runtime';
import { grantModelDefinitions } from './access';
import { commentModelDefinitions } from './comments';
import { gitModelDefinitions } from './git';
import { structureModelDefinitions, type ContentModels } from './kernel';
import { revisionModelDefinitions } from './revisions';
import { searchModelDefinitions } from './search';

/** Every module's models, registered on the content database (ContentModels lists them: a missing one does not compile). */
const contentModels = defineModels<ContentModels>({
  ...structureModelDefinitions,
  ...grantModelDefinitions,
  ...revisionModelDefinitions,
  ...commentModelDefinitions,
  ...gitModelDefinitions,
  ...searchModelDefinitions,
});

export const registerModels = contentModels.register;
export const modelsOf = contentModels.of;

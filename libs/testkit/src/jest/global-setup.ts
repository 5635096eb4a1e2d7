import { prepareSharedStacks } from '../shared-stack';
import { startTestDatastore } from './datastore';

/** jest `globalSetup` of every package (jest-preset.js): the run's datastore and Redis, and the directory of its shared stacks. */
export default async function globalSetup(): Promise<void> {
  await startTestDatastore();
  prepareSharedStacks();
}

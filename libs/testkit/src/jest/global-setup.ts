import { startTestDatastore } from './datastore';

/** jest `globalSetup` of every package (jest-preset.js): the run's datastore and Redis. */
export default async function globalSetup(): Promise<void> {
  await startTestDatastore();
}

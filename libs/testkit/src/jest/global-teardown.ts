import { stopSharedStacks } from '../shared-stack';
import { stopTestDatastore } from './datastore';

/** jest `globalTeardown` of every package (jest-preset.js): removes what the global setup and the suites' shared stacks left. */
export default async function globalTeardown(): Promise<void> {
  await stopSharedStacks();
  await stopTestDatastore();
}

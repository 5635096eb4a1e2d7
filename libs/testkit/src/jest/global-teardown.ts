import { stopTestDatastore } from './datastore';

/** jest `globalTeardown` of every package (jest-preset.js): removes what the global setup started. */
export default async function globalTeardown(): Promise<void> {
  await stopTestDatastore();
}

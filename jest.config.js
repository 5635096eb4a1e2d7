// `npm test` (after build and lint) and `npx jest [path…]`: every package that has a jest.config.js
// (libs/testkit/jest-preset.js), with one datastore for the whole run. Options jest reads only
// here, not per project, are the preset's: its workers, timeout (e2e suites start whole stacks in
// their hooks) and order (the longest suites first).
const preset = require('./libs/testkit/jest-preset');

/** @type {import('jest').Config} */
module.exports = {
  projects: ['<rootDir>/{libs,services,tools}/*/jest.config.js'],
  maxWorkers: preset.maxWorkers,
  testTimeout: preset.testTimeout,
  testSequencer: preset.testSequencer,
};

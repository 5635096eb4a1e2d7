// `npm test` (after build and lint) and `npx jest [path…]`: every package that has a jest.config.js
// (libs/testkit/jest-preset.js), with one datastore for the whole run. Options jest reads only
// here, not per project: two test files at a time (TEST_CONCURRENCY to change it), and the
// preset's timeout (e2e suites start whole stacks in their hooks).
/** @type {import('jest').Config} */
module.exports = {
  projects: ['<rootDir>/{libs,services,tools}/*/jest.config.js'],
  maxWorkers: process.env.TEST_CONCURRENCY ?? 2,
  testTimeout: require('./libs/testkit/jest-preset').testTimeout,
};

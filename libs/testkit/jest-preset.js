// The jest settings every package shares: its jest.config.js is `{ preset: '@quire/testkit' }`.
// Tests run from their TypeScript source through @swc/jest (no type check: `npm run build` does
// that); what they import from other packages, and the stacks they start, run from dist.
// Nothing here is compiled: jest reads this file as it is.
const path = require('node:path');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/src'],
  testMatch: ['<rootDir>/src/**/*.test.ts'],
  // e2e suites start whole stacks in their hooks: node's test runner had --test-timeout=300000.
  testTimeout: 300_000,
  transform: {
    '^.+\\.ts$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
    // Packages published only as ES modules, which jest's module sandbox cannot require: compiled to CommonJS too.
    '/node_modules/@apidevtools/.+\\.js$': ['@swc/jest', { jsc: { parser: { syntax: 'ecmascript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!@apidevtools/)'],
  // response.json() in the test file's realm, for node:assert's deepStrictEqual; every answer from Quire checked (src/contract.ts).
  setupFiles: [path.join(__dirname, 'dist/jest/same-realm-fetch.js')],
  // Options of the whole run, which jest reads only from the config it was given (a package's
  // own, `npm test -w <package>`); the root jest.config.js passes them on for a run of them all:
  // two test files at a time (TEST_CONCURRENCY to change it), the longest suites first.
  maxWorkers: process.env.TEST_CONCURRENCY ?? 2,
  testSequencer: path.join(__dirname, 'jest-sequencer.js'),
  // One datastore and Redis for the whole run (several projects: started once), removed at the end,
  // with the directory of the workers' shared stacks (sharedTestStack).
  globalSetup: path.join(__dirname, 'dist/jest/global-setup.js'),
  globalTeardown: path.join(__dirname, 'dist/jest/global-teardown.js'),
};

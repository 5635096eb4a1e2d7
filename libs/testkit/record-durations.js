// Refreshes test-durations.json (the sequencer's, jest-sequencer.js) from the report of a whole run:
//   npx jest --json --outputFile=<report.json> && node libs/testkit/record-durations.js <report.json>
// Each suite's wall time in seconds, by its path in the repository (libs|services|tools/<package>/src/…),
// whichever checkout the report was made in.
const { readFileSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const report = process.argv[2];
if (!report) throw new Error('usage: node libs/testkit/record-durations.js <jest --json report>');
const inRepository = (file) => /(?:^|\/)((?:libs|services|tools)\/[^/]+\/src\/.+)$/.exec(file)?.[1] ?? path.relative(path.resolve(__dirname, '../..'), file);
const durations = Object.fromEntries(
  JSON.parse(readFileSync(report, 'utf8'))
    .testResults.map((suite) => [inRepository(suite.name), Math.round((suite.endTime - suite.startTime) / 1000)])
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(path.join(__dirname, 'test-durations.json'), `${JSON.stringify(durations, null, 2)}\n`);
console.log(`${Object.keys(durations).length} suites recorded`);

// jest's testSequencer (jest.config.js at the root, and the preset's, for one package): the
// longest suites start first, so that the workers end together instead of one starting a long
// suite when the other is done. Durations from test-durations.json (recorded from a run:
// record-durations.js); a suite not listed there starts before them all, as it may be long.
// Nothing here is compiled: jest reads this file as it is.
const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;
const durations = require('./test-durations.json');

const root = path.resolve(__dirname, '../..');
const durationOf = (test) => durations[path.relative(root, test.path)] ?? Infinity;

class LongestFirst extends Sequencer {
  sort(tests) {
    return [...tests].sort((a, b) => durationOf(b) - durationOf(a) || a.path.localeCompare(b.path));
  }
}

module.exports = LongestFirst;

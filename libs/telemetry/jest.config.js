/** @type {import('jest').Config} */
module.exports = { displayName: require('./package.json').name, preset: '@quire/testkit' };

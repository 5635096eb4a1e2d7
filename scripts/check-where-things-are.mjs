// `npm run lint`: README "Where things are" names exactly what the boundary table
// (boundaries.table.mjs) names, in the table's order, and each of those is in the tree.
//
// The list is the section's fenced block: an entry starts at the left margin (`services/identity`,
// `libs/http`, `tools/stack`; other entries such as `protos/…` are not the table's), a service's
// parts follow indented by two spaces (`  db/`, `  index.ts, main.ts, service.ts`), and text
// indented further continues a description.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LIBS, SERVICES, TOOLS, partsOf } from '../boundaries.table.mjs';

const root = join(import.meta.dirname, '..');
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const section = readme.split(/^## Where things are$/m)[1]?.split(/^## /m)[0] ?? '';
const block = section.match(/^```\n([\s\S]*?)^```$/m)?.[1];
if (!block) throw new Error('README.md: no fenced list under "## Where things are"');

const found = [];
const problems = (message) => found.push(message);

/** The first column of a line: its text up to two spaces. */
const nameOf = (line) => line.trim().split(/ {2,}/)[0];
const listed = { services: new Map(), libs: [], tools: [] };
let service = null;
for (const line of block.split('\n')) {
  if (/^\S/.test(line)) {
    const [folder, name] = nameOf(line).split('/');
    service = folder === 'services' ? name : null;
    if (folder === 'services') listed.services.set(name, []);
    if (folder === 'libs' || folder === 'tools') listed[folder].push(name);
  } else if (/^ {2}\S/.test(line)) {
    if (service === null) problems(`"${line.trim()}" is indented under no service`);
    else listed.services.get(service).push(nameOf(line));
  }
}

const compareSets = (kind, inReadme, inTable) => {
  for (const name of inTable) if (!inReadme.includes(name)) problems(`${kind}/${name} is in the table but not in the README`);
  for (const name of inReadme) if (!inTable.includes(name)) problems(`${kind}/${name} is in the README but not in the table`);
};
compareSets('services', [...listed.services.keys()], Object.keys(SERVICES));
compareSets('libs', listed.libs, LIBS);
compareSets('tools', listed.tools, TOOLS);
for (const name of LIBS) if (!existsSync(join(root, 'libs', name))) problems(`libs/${name} is in the table but not in the tree`);
for (const name of TOOLS) if (!existsSync(join(root, 'tools', name))) problems(`tools/${name} is in the table but not in the tree`);

for (const [name, rows] of listed.services) {
  if (!SERVICES[name]) continue;
  const parts = partsOf(name);
  // A flat service is its one line.
  const expected = SERVICES[name].kind === 'flat' ? [] : parts.map((part) => part.name);
  if (rows.join(' | ') !== expected.join(' | '))
    problems(`services/${name}: the README lists ${rows.length ? rows.join(' | ') : 'no parts'}; the table, in its order: ${expected.join(' | ') || 'none'}`);
  const src = join(root, 'services', name, 'src');
  for (const part of parts.filter((part) => part.role !== 'flat')) {
    const missing = [...part.folders, ...part.files].filter((place) => !existsSync(join(src, place)));
    if (missing.length) problems(`services/${name}: ${missing.join(', ')} (${part.name}) in the table but not in the tree`);
  }
}

if (found.length) {
  console.error(`README "Where things are" and boundaries.table.mjs differ:\n${found.map((problem) => `  - ${problem}`).join('\n')}`);
  process.exit(1);
}

// `npm run lint`: typescript-eslint's recommended rules, and the boundaries of the house as one
// table (boundaries.table.mjs, README "Where things are") turned into rules that fail the build:
// eslint-plugin-boundaries denies by default every import between the table's parts that the
// table does not allow, and every file in a folder the table does not name; `no-restricted-imports`
// keeps packages (express, other services) and route files where the table says.
import boundaries from 'eslint-plugin-boundaries';
import tseslint from 'typescript-eslint';
import { LIBS, ROUTES, SERVICES, TESTS, TOOLS, partsOf } from './boundaries.table.mjs';

const SERVICE_NAMES = Object.keys(SERVICES);
const SERVICE_PACKAGES = SERVICE_NAMES.map((service) => `@quire/${service}`);

const src = (service) => `services/${service}/src`;
/** A part's element type (its folders) and file category (its files in src/). */
const kindOf = (service, part) => `${service}:${part.id}`;
/** Files of the service's parts (folders, files). */
const partsSelector = (service, parts) =>
  parts.flatMap((part) => [
    ...(part.folders.length ? [{ element: { type: kindOf(service, part) } }] : []),
    ...(part.files.length ? [{ file: { categories: kindOf(service, part) } }] : []),
  ]);
/** What other parts may import of a module: its index.ts (a module still in loose files has none). */
const doorsSelector = (service, parts) =>
  parts.flatMap((part) => [
    ...(part.folders.length ? [{ element: { type: kindOf(service, part), fileInternalPath: 'index.ts' } }] : []),
    ...(part.files.length ? [{ file: { categories: kindOf(service, part) } }] : []),
  ]);
const globs = (service, parts) =>
  parts.flatMap((part) => [...part.folders.map((folder) => `${src(service)}/${folder}/**/*.ts`), ...part.files.map((file) => `${src(service)}/${file}`)]);

// Where each file belongs: libraries, tools and the services' folders are elements; the files
// directly in a service's src/ are file categories (element patterns name folders only).
const elements = [
  { type: 'lib', pattern: LIBS.map((lib) => `libs/${lib}`), partialMatch: false },
  { type: 'tool', pattern: TOOLS.map((tool) => `tools/${tool}`), partialMatch: false },
  ...SERVICE_NAMES.flatMap((service) =>
    partsOf(service).flatMap((part) =>
      part.folders.map((folder) => ({ type: kindOf(service, part), pattern: `${src(service)}/${folder}`, partialMatch: false })),
    ),
  ),
];
const files = [
  { category: 'test', pattern: TESTS },
  ...SERVICE_NAMES.flatMap((service) =>
    partsOf(service)
      .filter((part) => part.files.length)
      .map((part) => ({ category: kindOf(service, part), pattern: part.files.map((file) => `${src(service)}/${file}`) })),
  ),
];

/**
 * The imports between parts of a service the table refuses, each with the reason. They come
 * first: the allowances after them reopen what the table allows (policies: the last match wins).
 */
function refusals(service) {
  const table = SERVICES[service];
  const parts = partsOf(service);
  const ranked = parts.filter((part) => part.rank !== undefined);
  const grpc = parts.filter((part) => part.role === 'grpc');
  const http = ranked.filter((part) => part.id === 'http');
  const anyFile = { file: { path: `${src(service)}/**` } };
  const order = ranked.map((part) => part.name).join(' ← ');
  const policies = [];
  if (table.kind === 'modules') {
    policies.push(
      {
        from: partsSelector(service, ranked),
        disallow: { to: partsSelector(service, ranked) },
        message: `'{{dependency.source}}' is a module after this one: dependencies point one way (${order}).`,
      },
      {
        from: anyFile,
        disallow: {
          to: { element: { type: ranked.filter((part) => part.folders.length).map((part) => kindOf(service, part)), fileInternalPath: '!index.ts' } },
        },
        message: `Import another module only through its index.ts (e.g. '../${ranked[1].id}'), never a file inside it.`,
      },
    );
  }
  if (table.kind === 'layers')
    policies.push({
      from: partsSelector(service, ranked),
      disallow: { to: partsSelector(service, ranked) },
      message: `'{{dependency.source}}' is a layer after this one: a layer never imports the layers after it (${order}).`,
    });
  if (grpc.length) policies.push({ from: anyFile, disallow: { to: partsSelector(service, grpc) }, message: 'Only the service composition imports grpc/.' });
  if (grpc.length && http.length)
    policies.push({
      from: partsSelector(service, grpc),
      disallow: { to: partsSelector(service, http) },
      message: 'gRPC servers share presenters/, not http/.',
    });
  return policies;
}

/** What each part of a service may import of it, as the table says. */
function allowances(service) {
  const table = SERVICES[service];
  const parts = partsOf(service);
  const byRole = (...roles) => parts.filter((part) => roles.includes(part.role));
  const ranked = byRole('layer', 'module');
  const below = (rank) => ranked.filter((part) => part.rank < rank);
  // Other parts enter a module through its index.ts; all else (its own files, which the plugin
  // leaves alone in a folder, layers, grpc/, the composition) is open as a whole.
  const open = (from, to) => {
    const doors = to.filter((part) => part.role === 'module' && part !== from);
    return [
      ...doorsSelector(service, doors),
      ...partsSelector(
        service,
        to.filter((part) => !doors.includes(part)),
      ),
    ];
  };
  const allowed = (part) => {
    switch (part.role) {
      case 'flat':
      case 'shared':
        return [part];
      case 'layer':
      case 'module':
        return [...byRole('shared'), ...below(part.rank), part];
      case 'grpc':
        return [...byRole('shared'), ...(table.kind === 'layers' ? below(ranked.length - 1) : ranked), part];
      case 'composition':
        return parts;
    }
  };
  const exception = (id) => parts.find((part) => part.id === id);
  return [
    ...parts.map((part) => ({ from: partsSelector(service, [part]), allow: { to: open(part, allowed(part)) } })),
    ...(table.exceptions ?? []).map(({ from, to, types }) => ({
      from: partsSelector(service, [exception(from)]),
      allow: { to: open(exception(from), [exception(to)]), ...(types ? { dependency: { kind: 'type' } } : {}) },
    })),
    // Tests may import anything of their own service, module internals included.
    { from: { file: { path: `services/${service}/**`, categories: 'test' } }, allow: { to: { file: { path: `services/${service}/**` } } } },
  ];
}

/** A file in no folder of the table fails, with a message that says where to place it. */
const noUnknownFiles = boundaries.rules['no-unknown-files'];
const placedInTable = {
  ...noUnknownFiles,
  create: (context) =>
    noUnknownFiles.create(
      Object.create(context, {
        report: {
          value: (descriptor) =>
            context.report({
              ...descriptor,
              message:
                'This file is in no folder of the boundary table: place its folder (or service, or library) in boundaries.table.mjs and README "Where things are", which say what it may import.',
            }),
        },
      }),
    ),
};

// Packages and route files, from the same table. `no-restricted-imports` options of two config
// objects do not add up (the later one replaces the rule for the files it names), so each set
// of files below names all it refuses, from the broadest to the narrowest.
const packageRefusals = (names, message) => names.map((name) => ({ name, message }));
const servicePackages = packageRefusals(
  SERVICE_PACKAGES,
  'Services never import each other: they talk over gRPC (only tests and tools start another service).',
);
const restrict = (files, paths, patterns = []) => ({ files, rules: { 'no-restricted-imports': ['error', { paths, patterns }] } });
const onlyRoutesImportRoutes = {
  regex: '(^|/)([a-z-]+-)?routes$',
  message: 'Only routes import routes: domain, persistence and presenters never depend on the HTTP layer.',
};
const importRules = [
  restrict(['libs/**/*.ts'], packageRefusals(SERVICE_PACKAGES, 'Libraries never import services.')),
  restrict(
    SERVICE_NAMES.map((service) => `${src(service)}/**/*.ts`),
    servicePackages,
  ),
  ...SERVICE_NAMES.flatMap((service) => {
    const table = SERVICES[service];
    const parts = partsOf(service);
    if (table.kind === 'layers') {
      const expressFree = parts.filter((part) => ['shared', 'grpc'].includes(part.role) || (part.role === 'layer' && !table.express.includes(part.id)));
      const knowers = table.express.map((layer) => `${layer}/`).join(' and ');
      const express = { name: 'express', message: `Only ${knowers} ${table.express.length > 1 ? 'know' : 'knows'} express.` };
      return [restrict(globs(service, expressFree), [...servicePackages, express])];
    }
    if (table.kind === 'modules') {
      const modules = parts.filter((part) => part.role === 'module' || part.role === 'grpc');
      const express = { name: 'express', message: 'Only routes know express.' };
      const folders = `{${modules.flatMap((part) => part.folders).join(',')}}`;
      return [
        restrict(globs(service, modules), [...servicePackages, express], [onlyRoutesImportRoutes]),
        // A module's routes, and its index, which hands them to the service.
        restrict([...ROUTES.map((pattern) => `${src(service)}/${folders}/${pattern}`), `${src(service)}/${folders}/index.ts`], servicePackages),
      ];
    }
    return [];
  }),
  { files: TESTS, rules: { 'no-restricted-imports': 'off' } },
];

/** Routes and gRPC servers declare input and call the domain: they never query the database themselves. */
const serversDoNotQuery = {
  files: [
    ...ROUTES.map((pattern) => `services/*/src/${pattern}`),
    ...SERVICE_NAMES.flatMap((service) =>
      globs(
        service,
        partsOf(service).filter((part) => part.id === 'http' || part.id === 'grpc'),
      ),
    ),
  ],
  rules: {
    'no-restricted-syntax': [
      'error',
      {
        selector: "MemberExpression[property.name='models']",
        message: 'Routes and gRPC servers call domain functions; reading or writing models is the domain’s job.',
      },
    ],
  },
};

export default tseslint.config(
  { ignores: ['**/dist/**', '**/gen/**', '**/node_modules/**', '.tools/**', 'deploy/**', '**/*.js', '**/*.mjs', '**/*.cjs'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
    },
  },
  // Tests and the test kit read JSON bodies whose shape they are checking: `any` is the honest type there.
  { files: ['**/*.test.ts', '**/test/**/*.ts', 'libs/testkit/**/*.ts'], rules: { '@typescript-eslint/no-explicit-any': 'off' } },
  {
    files: ['**/*.ts'],
    plugins: { boundaries, quire: { rules: { 'placed-in-table': placedInTable } } },
    settings: {
      'boundaries/root-path': import.meta.dirname,
      'boundaries/elements': elements,
      'boundaries/files': files,
      'boundaries/legacy-templates': false,
      // The libraries and services are imported as packages (@quire/…), whether built yet or not.
      'boundaries/flag-as-external': { customSourcePatterns: ['@quire/**'] },
      'import/resolver': { node: { extensions: ['.ts', '.json'] } },
    },
    rules: {
      // Imports within one folder of the table, and of packages, are left to the rules below.
      'boundaries/dependencies': [
        'error',
        {
          default: 'disallow',
          checkUnknownLocals: true,
          message: 'No line of the boundary table lets this file import \'{{dependency.source}}\' (boundaries.table.mjs, README "Where things are").',
          policies: [...SERVICE_NAMES.flatMap(refusals), ...SERVICE_NAMES.flatMap(allowances)],
        },
      ],
      'quire/placed-in-table': 'error',
    },
  },
  ...importRules,
  serversDoNotQuery,
);

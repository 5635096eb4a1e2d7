// `npm run lint`: typescript-eslint's recommended rules, and the boundaries of the house
// (README "Where things are") as rules that fail the build when code crosses them.
import tseslint from 'typescript-eslint';

/**
 * Content's feature modules, lowest first: a module may import the modules before it in this
 * list (through their index.ts only), never one after it.
 */
const CONTENT_MODULES = ['kernel', 'access', 'revisions', 'structure', 'templates', 'change-requests', 'comments', 'search', 'git'];
/** Identity and publishing keep layers: each may import the ones before it, never after. */
const LAYERS = ['db', 'domain', 'presenters', 'http'];
const LAYERED_SERVICES = ['identity', 'publishing'];

const alternatives = (names) => names.join('|');

/** `no-restricted-imports` options: one config object per file set, because options of two objects do not add up. */
const restrict = (files, patterns, paths = []) => ({
  files,
  rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
});

const onlyThroughIndex = (prefix) => ({
  regex: `^${prefix}(${alternatives(CONTENT_MODULES)})/.+`,
  message: "Import another module only through its index.ts (e.g. '../structure'), never a file inside it.",
});

const contentModuleRules = CONTENT_MODULES.flatMap((module, rank) => {
  const above = CONTENT_MODULES.slice(rank + 1);
  const upward = (prefix) =>
    above.length === 0
      ? []
      : [
          {
            regex: `^${prefix}(${alternatives(above)})(/.*)?$`,
            message: `${module} is below ${above.join(', ')}: dependencies point one way (kernel ← access ← revisions ← features).`,
          },
        ];
  const fromHttp = { regex: '(^|/)[a-z-]+-routes$', message: 'Only routes import routes: domain, persistence and presenters never depend on the HTTP layer.' };
  // Files directly in the module folder, then one folder deeper (git/…); a later object wins
  // for the files it names, so the routes files and the index (which hands the routes to the
  // service) get the same rules minus the HTTP one.
  const shallow = [onlyThroughIndex('\\.\\./'), ...upward('\\.\\./')];
  const deep = [onlyThroughIndex('\\.\\./\\.\\./'), ...upward('\\.\\./\\.\\./')];
  const express = [{ name: 'express', message: 'Only routes know express.' }];
  return [
    restrict([`services/content/src/${module}/*.ts`], [...shallow, fromHttp], express),
    restrict([`services/content/src/${module}/*/**/*.ts`], [...deep, fromHttp], express),
    restrict([`services/content/src/${module}/*-routes.ts`, `services/content/src/${module}/index.ts`], shallow),
    restrict([`services/content/src/${module}/*/**/*-routes.ts`], deep),
  ];
});

const contentCompositionRules = [
  restrict(['services/content/src/*.ts'], [onlyThroughIndex('\\./')]),
  restrict(['services/content/src/{grpc,http,test}/**/*.ts'], [onlyThroughIndex('\\.\\./')]),
];

const layerRules = LAYERED_SERVICES.flatMap((service) =>
  LAYERS.map((layer, rank) => {
    const above = LAYERS.slice(rank + 1);
    const patterns = [
      ...(above.length
        ? [{ regex: `^\\.\\./(${alternatives(above)})(/.*)?$`, message: `${layer}/ is below ${above.join(', ')}/: it never imports them.` }]
        : []),
      ...(layer === 'http' ? [] : [{ regex: '^\\.\\./grpc(/.*)?$', message: 'Only the service composition imports grpc/.' }]),
    ];
    return restrict(
      [`services/${service}/src/${layer}/**/*.ts`],
      patterns,
      layer === 'http' ? [] : [{ name: 'express', message: 'Only http/ knows express.' }],
    );
  }),
).concat(
  LAYERED_SERVICES.map((service) =>
    restrict([`services/${service}/src/grpc/**/*.ts`], [{ regex: '^\\.\\./http(/.*)?$', message: 'gRPC servers share presenters/, not http/.' }]),
  ),
);

/** A route declares input and calls the domain: it never queries the database itself. */
const routesDoNotQuery = {
  files: ['services/*/src/**/*-routes.ts', 'services/*/src/http/**/*.ts'],
  rules: {
    'no-restricted-syntax': [
      'error',
      { selector: "MemberExpression[property.name='models']", message: 'Routes call domain functions; reading or writing models is the domain’s job.' },
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
  ...contentModuleRules,
  ...contentCompositionRules,
  ...layerRules,
  routesDoNotQuery,
);

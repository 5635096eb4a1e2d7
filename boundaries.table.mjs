// The boundary table: where each source file of the house belongs, and what it may import.
// eslint.config.mjs turns it into eslint-plugin-boundaries rules that deny by default (an import
// the table does not allow fails lint, and so does a file in a folder the table does not name);
// scripts/check-where-things-are.mjs checks README "Where things are" against it.

/** Libraries (libs/<name>): they import each other as packages, never a service. */
export const LIBS = ['async', 'contract', 'datastore', 'http', 'markdown', 'proto', 'runtime', 'telemetry', 'testkit'];

/** Tools (tools/<name>): the launcher, the operator CLI and the benchmark; they may import services. */
export const TOOLS = ['stack'];

/**
 * Tests (`*.test.ts`, a `test/` folder, and integrations' `fixtures/`) may import anything of their
 * own service, module internals included, so a module's index.ts carries production names only.
 */
export const TESTS = ['**/*.test.ts', '**/test/**', 'services/*/fixtures/**'];

/** Route files: they never touch `ctx.models`, and in a service of modules they are the only files that know express. */
export const ROUTES = ['**/*-routes.ts', '**/routes.ts'];

/**
 * Services, each of one kind:
 * - `flat`: one folder of files (src/*.ts), importing libraries only.
 * - `layers`: each layer imports the layers before it in `layers`, never one after it; `grpc/`
 *   sits beside the last layer (http/), importing what http/ may but never http/ itself; only
 *   the `express` layers know express; `shared` files (settings) import nothing of the service
 *   and every part may import them.
 * - `modules`: feature folders, each reached through its index.ts only, importing only the
 *   modules before it in `modules`; only their route files know express.
 * `grpc` services have a gRPC server in grpc/, which only the composition imports.
 * `composition` (the files directly in src/ it lists, and content's http/, the route list) puts
 * the service together: it may import every part, modules through their index.ts.
 * Route files and gRPC servers (http/, grpc/) call the domain and never touch `ctx.models`.
 * `exceptions` name the imports the rules above would refuse, and why they stay.
 */
export const SERVICES = {
  gateway: { kind: 'flat' },
  identity: {
    kind: 'layers',
    layers: ['db', 'domain', 'presenters', 'http'],
    express: ['http'],
    grpc: true,
    composition: ['admin.ts', 'index.ts', 'main.ts', 'service.ts'],
  },
  publishing: {
    kind: 'layers',
    shared: ['config.ts'],
    layers: ['db', 'domain', 'presenters', 'published', 'http'],
    express: ['published', 'http'],
    grpc: true,
    composition: ['index.ts', 'main.ts', 'service.ts'],
  },
  content: {
    kind: 'modules',
    modules: ['kernel', 'access', 'revisions', 'structure', 'templates', 'change-requests', 'comments', 'search', 'git'],
    grpc: true,
    composition: ['config.ts', 'index.ts', 'main.ts', 'models.ts', 'service.ts', 'http/'],
  },
  integrations: {
    kind: 'layers',
    shared: ['config.ts'],
    layers: ['runtime', 'db', 'domain', 'presenters', 'http'],
    express: ['http'],
    grpc: false,
    composition: ['index.ts', 'main.ts', 'service.ts'],
    exceptions: [
      {
        from: 'domain',
        to: 'presenters',
        why: 'event payloads and script inputs carry an installation as the REST API presents it (domain/delivery.ts, domain/installations.ts)',
      },
    ],
  },
  insights: {
    kind: 'modules',
    modules: ['kernel', 'conversations', 'translations'],
    grpc: true,
    composition: ['index.ts', 'main.ts', 'models.ts', 'service.ts'],
    exceptions: [
      {
        from: 'kernel',
        to: 'conversations',
        types: true,
        why: "InsightsModels names each module's models until the kernel lets modules add theirs by declaration merging, as content's does",
      },
      { from: 'kernel', to: 'translations', types: true, why: 'as for conversations' },
    ],
  },
};

/**
 * A service's parts in table order, as README "Where things are" names them (`name`: a folder,
 * `db/`, or a list of files and folders, `index.ts, main.ts, service.ts`), with their `id` (the
 * folder, or the role), where they are under src/ (`folders`, `files`), their `role` (flat,
 * shared, layer, module, grpc, composition) and, for layers and modules, their `rank`.
 */
export function partsOf(service) {
  const table = SERVICES[service];
  const part = (role, names, extra = {}) => ({
    id: role,
    name: names.join(', '),
    folders: names.filter((n) => n.endsWith('/')).map((n) => n.slice(0, -1)),
    files: names.filter((n) => !n.endsWith('/')),
    role,
    ...extra,
  });
  const ordered = (role, names) => names.map((name, rank) => part(role, [`${name}/`], { id: name, rank }));
  if (table.kind === 'flat') return [{ id: 'flat', name: 'src/*.ts', folders: [], files: ['*.ts'], role: 'flat' }];
  return [
    ...(table.shared ? [part('shared', table.shared)] : []),
    ...(table.kind === 'layers' ? ordered('layer', table.layers) : ordered('module', table.modules)),
    ...(table.grpc ? [part('grpc', ['grpc/'])] : []),
    part('composition', table.composition),
  ];
}

import { readdirSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * What the services' code does across their boundaries, read from the TypeScript sources with
 * the type checker (so a client passed around, destructured or wrapped is still recognised):
 * the gRPC definition each registers, the gRPC methods it calls through the typed clients
 * (libs/http `Clients`) or a raw connection, and the events it publishes and subscribes to
 * (libs/async `EventBus`, by the event definitions handed to it). A call made by a library
 * function counts for every service whose code uses that function; a definition handed to a
 * wrapper (`announce(ctx, EVENTS.x, …)`) counts where the wrapper is called. Tests do not count.
 */

/** Where the code does it: `services/content/src/access/grants.ts:131`. */
export type Site = string;

export interface ServiceCode {
  /** The proto service it registers on its gRPC server (full name), where. */
  serves: Map<string, Site[]>;
  /** `identity.BatchGetUsers` → where it calls it. */
  calls: Map<string, Site[]>;
  /** Event type → where it publishes it. */
  publishes: Map<string, Site[]>;
  /** Event type → where it subscribes to it. */
  consumes: Map<string, Site[]>;
}

export interface ProtoService {
  /** The service its package belongs to (`quire.content.v1` → content). */
  owner: string;
  fullName: string;
  /** Proto method names (`BatchGetSpaces`) by the clients' names (`batchGetSpaces`). */
  methods: Map<string, string>;
}

export interface CodeFacts {
  services: Map<string, ServiceCode>;
  /** By full name. */
  protos: Map<string, ProtoService>;
  /** The event types libs/async's EVENTS defines. */
  events: Set<string>;
}

const isTestFile = (file: string) => file.endsWith('.test.ts') || file.includes('/src/test/');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return full.endsWith('.ts') && !full.endsWith('.d.ts') && !isTestFile(full) ? [full] : [];
  });
}

export function readCode(root: string, services: readonly string[]): CodeFacts {
  const { config } = ts.readConfigFile(path.join(root, 'tsconfig.base.json'), ts.sys.readFile);
  const { options } = ts.convertCompilerOptionsFromJson(config.compilerOptions, root);
  // The libraries from their sources, so that a call a library function makes is seen where it is made.
  const program = ts.createProgram(
    services.flatMap((service) => sourceFiles(path.join(root, 'services', service, 'src'))),
    { ...options, noEmit: true, baseUrl: root, paths: { '@quire/*': ['libs/*/src'] } },
  );
  const checker = program.getTypeChecker();
  const relative = (file: string) => path.relative(root, file);
  const files = program
    .getSourceFiles()
    .filter(
      (file) =>
        !file.isDeclarationFile && !relative(file.fileName).startsWith('..') && !/node_modules|\/gen\//.test(file.fileName) && !isTestFile(file.fileName),
    );

  const exportsOf = (library: string): Map<string, ts.Symbol> => {
    const file = program.getSourceFile(path.join(root, 'libs', library, 'src', 'index.ts'));
    const module = file && checker.getSymbolAtLocation(file);
    if (!module) throw new Error(`libs/${library}/src/index.ts is not in the program`);
    return new Map(checker.getExportsOfModule(module).map((symbol) => [symbol.name, resolved(symbol)]));
  };
  const resolved = (symbol: ts.Symbol): ts.Symbol => (symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol);
  const exported = (library: string, name: string): ts.Symbol => {
    const symbol = exportsOf(library).get(name);
    if (!symbol) throw new Error(`libs/${library} exports no ${name}: the surface check (tools/stack surface-code.ts) must learn its new name`);
    return symbol;
  };
  const propertyType = (type: ts.Type, name: string) => {
    const property = type.getProperty(name);
    return property && checker.getTypeOfSymbol(property);
  };
  const literals = (type: ts.Type | undefined): string[] => {
    if (!type) return [];
    if (type.isUnion()) return type.types.flatMap(literals);
    return type.isStringLiteral() ? [type.value] : [];
  };

  // The proto services (libs/proto: a namespace per package, with its ServiceDefinition).
  const protos = new Map<string, ProtoService>();
  for (const namespace of exportsOf('proto').values()) {
    if (!(namespace.flags & ts.SymbolFlags.Module)) continue;
    for (const symbol of checker.getExportsOfModule(namespace)) {
      if (!symbol.name.endsWith('ServiceDefinition') || !(symbol.flags & ts.SymbolFlags.Variable)) continue;
      const definition = checker.getTypeOfSymbol(symbol);
      const [fullName] = literals(propertyType(definition, 'fullName'));
      const methodsType = propertyType(definition, 'methods');
      if (!fullName || !methodsType) continue;
      const methods = new Map(
        checker.getPropertiesOfType(methodsType).map((method) => [method.name, literals(propertyType(checker.getTypeOfSymbol(method), 'name'))[0]!]),
      );
      protos.set(fullName, { owner: fullName.split('.')[1]!, fullName, methods });
    }
  }
  const protoOf = (owner: string) => [...protos.values()].find((proto) => proto.owner === owner);

  // The typed clients: each property of libs/http's Clients is one service's client interface.
  // Their implementation's calls on the raw connections are theirs: what counts is who calls them.
  const clients = exported('http', 'Clients');
  const clientsFile = clients.declarations?.[0]?.getSourceFile();
  const clientInterfaces = new Map<ts.Symbol, string>();
  for (const property of checker.getPropertiesOfType(checker.getDeclaredTypeOfSymbol(clients))) {
    const symbol = checker.getTypeOfSymbol(property).getSymbol();
    if (symbol) clientInterfaces.set(symbol, property.name);
  }
  const eventBus = exported('async', 'EventBus');
  const grpcServer = exported('runtime', 'GrpcServerHandle');
  const events = new Set(
    checker
      .getPropertiesOfType(checker.getTypeOfSymbol(exported('async', 'EVENTS')))
      .flatMap((event) => literals(propertyType(checker.getTypeOfSymbol(event), 'type'))),
  );

  /** The interface a method is declared in. */
  const ownerOf = (method: ts.Symbol | undefined): ts.Symbol | undefined => {
    const declaration = method?.declarations?.[0];
    return declaration && ts.isInterfaceDeclaration(declaration.parent) ? checker.getSymbolAtLocation(declaration.parent.name) : undefined;
  };
  /** `identity.BatchGetUsers` for a method of a typed client or of a raw gRPC connection (its definition's `methods`). */
  const grpcMethodOf = (method: ts.Symbol | undefined, name: string): string | undefined => {
    const owner = ownerOf(method);
    const service = owner && clientInterfaces.get(owner);
    if (service) return `${service}.${protoOf(service)?.methods.get(name) ?? name}`;
    const declaration = method?.declarations?.[0];
    const generated = declaration && /\/gen\/([a-z]+)\/v1\//.exec(declaration.getSourceFile().fileName);
    const proto = generated && protoOf(generated[1]!);
    return proto?.methods.has(name) ? `${proto.owner}.${proto.methods.get(name)}` : undefined;
  };

  // Every identifier by name: where a function of a library, or a wrapper, is used.
  const identifiers = new Map<string, ts.Identifier[]>();
  const calls: ts.CallExpression[] = [];
  const methodNames = new Set(['publish', 'subscribe', 'add', ...[...protos.values()].flatMap((proto) => [...proto.methods.keys()])]);
  for (const file of files) {
    const visit = (node: ts.Node) => {
      if (ts.isIdentifier(node)) (identifiers.get(node.text) ?? identifiers.set(node.text, []).get(node.text)!).push(node);
      if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && methodNames.has(node.expression.name.text)) calls.push(node);
      ts.forEachChild(node, visit);
    };
    visit(file);
  }

  const siteOf = (node: ts.Node): Site => {
    const file = node.getSourceFile();
    return `${relative(file.fileName)}:${file.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  };
  const serviceOf = (node: ts.Node) => /^services\/([^/]+)\/src\//.exec(relative(node.getSourceFile().fileName))?.[1];

  /** The named function around a node (a function, a method, or a function kept in a variable). */
  const enclosingFunction = (node: ts.Node): ts.Symbol | undefined => {
    for (let at = node.parent; at; at = at.parent) {
      if ((ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at)) && at.name) return checker.getSymbolAtLocation(at.name);
      if ((ts.isArrowFunction(at) || ts.isFunctionExpression(at)) && ts.isVariableDeclaration(at.parent)) return checker.getSymbolAtLocation(at.parent.name);
    }
    return undefined;
  };
  /** Where a symbol is used (imports and exports of it aside). */
  const usesOf = (symbol: ts.Symbol): ts.Identifier[] =>
    (identifiers.get(symbol.name) ?? []).filter((identifier) => {
      if (ts.isImportSpecifier(identifier.parent) || ts.isExportSpecifier(identifier.parent) || ts.isImportClause(identifier.parent)) return false;
      if (symbol.declarations?.some((declaration) => (declaration as ts.NamedDeclaration).name === identifier)) return false;
      const found = checker.getSymbolAtLocation(identifier);
      return found !== undefined && resolved(found) === symbol;
    });

  /** The services whose code reaches `node`: its own, or those using the library function around it; with the site in each. */
  const reaching = (node: ts.Node, seen = new Set<ts.Symbol>()): Map<string, Site> => {
    const service = serviceOf(node);
    if (service) return new Map([[service, siteOf(node)]]);
    const around = enclosingFunction(node);
    const found = new Map<string, Site>();
    if (!around || seen.has(around)) return found;
    seen.add(around);
    for (const use of usesOf(around)) {
      for (const [user, site] of reaching(use, seen)) if (!found.has(user)) found.set(user, `${site} (through ${siteOf(node)})`);
    }
    return found;
  };

  /**
   * The event types handed as argument `index` of `call`: from the definitions' types, or, when
   * the argument is a parameter of a wrapper, from what each caller of the wrapper hands it.
   */
  const eventsAt = (call: ts.CallExpression, index: number, seen = new Set<ts.Symbol>()): Array<{ type: string; at: ts.Node }> => {
    const argument = call.arguments[index];
    if (!argument) return [];
    const types = eventTypesOf(checker.getTypeAtLocation(argument));
    if (types.length > 0) return types.map((type) => ({ type, at: call }));
    const parameter = ts.isIdentifier(argument) ? checker.getSymbolAtLocation(argument)?.valueDeclaration : undefined;
    if (!parameter || !ts.isParameter(parameter)) return [];
    const wrapper = enclosingFunction(parameter.name);
    if (!wrapper || seen.has(wrapper)) return [];
    seen.add(wrapper);
    const position = parameter.parent.parameters.indexOf(parameter);
    return usesOf(wrapper).flatMap((use) => {
      const callee = ts.isPropertyAccessExpression(use.parent) && use.parent.name === use ? use.parent : use;
      return ts.isCallExpression(callee.parent) && callee.parent.expression === callee ? eventsAt(callee.parent, position, seen) : [];
    });
  };
  const eventTypesOf = (type: ts.Type): string[] => {
    if (checker.isTupleType(type) || checker.isArrayType(type)) return checker.getTypeArguments(type as ts.TypeReference).flatMap(eventTypesOf);
    if (type.isUnion()) return type.types.flatMap(eventTypesOf);
    return literals(propertyType(type, 'type'));
  };

  const facts = new Map(
    services.map((service): [string, ServiceCode] => [service, { serves: new Map(), calls: new Map(), publishes: new Map(), consumes: new Map() }]),
  );
  const record = (kind: keyof ServiceCode, what: string, at: ts.Node) => {
    for (const [service, site] of reaching(at)) {
      const sites = facts.get(service)?.[kind];
      if (sites) (sites.get(what) ?? sites.set(what, []).get(what)!).push(site);
    }
  };
  for (const call of calls) {
    const access = call.expression as ts.PropertyAccessExpression;
    const method = checker.getSymbolAtLocation(access.name);
    const owner = ownerOf(method);
    if (owner === eventBus && access.name.text === 'publish') for (const { type, at } of eventsAt(call, 0)) record('publishes', type, at);
    else if (owner === eventBus && access.name.text === 'subscribe') for (const { type, at } of eventsAt(call, 1)) record('consumes', type, at);
    else if (owner === grpcServer && access.name.text === 'add') {
      const [fullName] = call.arguments[0] ? literals(propertyType(checker.getTypeAtLocation(call.arguments[0]), 'fullName')) : [];
      if (fullName) record('serves', fullName, call);
    } else if (call.getSourceFile() !== clientsFile) {
      const grpcMethod = grpcMethodOf(method, access.name.text);
      if (grpcMethod) record('calls', grpcMethod, call);
    }
  }
  return { services: facts, protos, events };
}

import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '@quire/datastore';
import { z } from 'zod';
import { readCode, type CodeFacts, type Site } from './surface-code';

/**
 * Each service states its surface in services/<name>/surface.json: the gRPC methods it offers
 * (its proto service's, protos/<name>/v1) and the ones it calls on each other service, the
 * events it publishes and the ones it consumes (libs/async EVENTS), by their proto and event
 * names. One place to ask who calls what:
 *
 *   npm run surface                   every method and event: who offers, calls, publishes, consumes
 *   npm run surface -- BatchGetSpaces who offers and who calls it (an event type: who publishes and consumes it)
 *   npm run surface -- --check        lint: every file says what its service's code does (surface-code.ts)
 */

const surfaceSchema = z.strictObject({
  grpc: z.strictObject({
    /** The methods of the service's proto service, when it serves it. */
    offers: z.array(z.string()),
    /** By service: the methods this one calls. */
    calls: z.record(z.string(), z.array(z.string())),
  }),
  events: z.strictObject({ publishes: z.array(z.string()), consumes: z.array(z.string()) }),
});
type Surface = z.infer<typeof surfaceSchema>;

const root = repoRoot();
const fileOf = (service: string) => `services/${service}/surface.json`;
const services = readdirSync(path.join(root, 'services')).filter((name) => existsSync(path.join(root, 'services', name, 'package.json')));

function readSurfaces(problems: string[]): Map<string, Surface> {
  const surfaces = new Map<string, Surface>();
  for (const service of services) {
    const file = path.join(root, fileOf(service));
    if (!existsSync(file)) {
      problems.push(`${service} states no surface: write ${fileOf(service)}`);
      continue;
    }
    const parsed = surfaceSchema.safeParse(JSON.parse(readFileSync(file, 'utf8')));
    if (parsed.success) surfaces.set(service, parsed.data);
    else problems.push(`${fileOf(service)}: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`);
  }
  return surfaces;
}

/** `identity.BatchGetUsers` for each call a surface declares. */
const declaredCalls = (surface: Surface) => Object.entries(surface.grpc.calls).flatMap(([service, methods]) => methods.map((method) => `${service}.${method}`));
const where = (sites: Site[] | undefined) => (sites ? ` (${sites.slice(0, 2).join(', ')}${sites.length > 2 ? ', …' : ''})` : '');

/** What declared and done differ in, each side named. */
function compare(
  problems: string[],
  declared: Iterable<string>,
  done: Map<string, Site[]>,
  undeclared: (item: string) => string,
  unused: (item: string) => string,
) {
  const stated = new Set(declared);
  for (const [item, sites] of done) if (!stated.has(item)) problems.push(`${undeclared(item)}${where(sites)}`);
  for (const item of stated) if (!done.has(item)) problems.push(unused(item));
}

function check(surfaces: Map<string, Surface>, code: CodeFacts, problems: string[], warnings: string[]) {
  const offered = (service: string) => new Set(surfaces.get(service)?.grpc.offers.map((method) => `${service}.${method}`));
  const published = new Set([...surfaces.values()].flatMap((surface) => surface.events.publishes));
  for (const [service, surface] of surfaces) {
    const facts = code.services.get(service)!;
    const file = fileOf(service);
    const proto = [...code.protos.values()].find((candidate) => candidate.owner === service);
    for (const [fullName, sites] of facts.serves) {
      if (fullName !== proto?.fullName) problems.push(`${service} serves ${fullName}, the contract of another service${where(sites)}`);
    }
    const serving = proto && facts.serves.has(proto.fullName);
    if (proto && !serving)
      warnings.push(`protos/${service}/v1 declares ${proto.fullName} (${[...proto.methods.values()].join(', ')}), which ${service} does not serve`);
    compare(
      problems,
      surface.grpc.offers,
      new Map(serving ? [...proto.methods.values()].map((method) => [method, facts.serves.get(proto.fullName)!]) : []),
      (method) => `${service} serves ${method} (protos/${service}/v1) but ${file} does not list it in grpc.offers`,
      (method) => `${file} offers ${method}, which ${service} does not serve`,
    );
    compare(
      problems,
      declaredCalls(surface),
      facts.calls,
      (call) => `${service} calls ${call} but ${file} does not list it in grpc.calls`,
      (call) => `${file} lists a call of ${call} that ${service}'s code never makes`,
    );
    for (const call of declaredCalls(surface)) {
      const [target] = call.split('.');
      if (!offered(target!).has(call)) problems.push(`${service} calls ${call}, which ${fileOf(target!)} does not offer`);
    }
    compare(
      problems,
      surface.events.publishes,
      facts.publishes,
      (type) => `${service} publishes ${type} but ${file} does not list it in events.publishes`,
      (type) => `${file} publishes ${type}, which ${service}'s code never publishes`,
    );
    compare(
      problems,
      surface.events.consumes,
      facts.consumes,
      (type) => `${service} subscribes to ${type} but ${file} does not list it in events.consumes`,
      (type) => `${file} consumes ${type}, which ${service}'s code never subscribes to`,
    );
    for (const type of [...surface.events.publishes, ...surface.events.consumes]) {
      if (!code.events.has(type)) problems.push(`${file} names ${type}, which libs/async EVENTS does not define`);
    }
    for (const type of surface.events.consumes) if (!published.has(type)) problems.push(`${service} consumes ${type}, which no service publishes`);
  }
}

/** One line per method and per event: who offers and calls it, who publishes and consumes it. */
function describe(surfaces: Map<string, Surface>, asked?: string): string[] {
  const lines: string[] = [];
  const matches = (name: string) => !asked || [name, name.split('.').pop()!].some((candidate) => candidate.toLowerCase() === asked.toLowerCase());
  const entries = [...surfaces];
  for (const [service, surface] of entries) {
    for (const method of surface.grpc.offers) {
      const name = `${service}.${method}`;
      if (!matches(name)) continue;
      const callers = entries.filter(([, other]) => declaredCalls(other).includes(name)).map(([caller]) => caller);
      lines.push(`${name}: offered by ${service}; called by ${callers.join(', ') || 'no service'}`);
    }
  }
  const types = [...new Set(entries.flatMap(([, surface]) => [...surface.events.publishes, ...surface.events.consumes]))].sort();
  for (const type of types.filter(matches)) {
    const by = (list: 'publishes' | 'consumes') => entries.filter(([, surface]) => surface.events[list].includes(type)).map(([service]) => service);
    lines.push(`${type}: published by ${by('publishes').join(', ') || 'no service'}; consumed by ${by('consumes').join(', ') || 'no service'}`);
  }
  return lines;
}

function main() {
  const problems: string[] = [];
  const surfaces = readSurfaces(problems);
  const args = process.argv.slice(2);
  if (args.includes('--check')) {
    const warnings: string[] = [];
    if (problems.length === 0) check(surfaces, readCode(root, services), problems, warnings);
    for (const warning of warnings) console.warn(`surface: warning: ${warning}`);
    for (const problem of problems) console.error(`surface: ${problem}`);
    if (problems.length > 0) process.exit(1);
    return;
  }
  for (const problem of problems) console.error(`surface: ${problem}`);
  for (const asked of args.length > 0 ? args : [undefined]) {
    const lines = describe(surfaces, asked);
    console.log(lines.length > 0 ? lines.join('\n') : `no method or event named ${asked} in the services' surfaces`);
  }
}

main();

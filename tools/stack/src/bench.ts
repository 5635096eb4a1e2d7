import { performance } from 'node:perf_hooks';
import { addMembership, withIdentityAdmin } from '@quire/identity';
import { baseConfigSchema, connectDatabase, createLogger, loadConfig, newId, type BaseConfig } from '@quire/runtime';
import { apiClient, startTestStack } from '@quire/testkit';
import { benchContent } from './bench-content';
import { benchConversations } from './bench-conversations';
import { benchGit } from './bench-git';
import { benchIntegrations } from './bench-integrations';
import { benchRequestPath } from './bench-request-path';
import { benchScaleout } from './bench-scaleout';
import { benchTracing } from './bench-tracing';
import { benchScripts } from './bench-scripts';
import { benchSearch } from './bench-search';
import { benchSites } from './bench-sites';
import { benchTenants } from './bench-tenants';
import { benchTranslations, startBenchTranslationProvider } from './bench-translations';
import { summary } from './bench-stats';
import { internalSecretOf } from './layout';

/**
 * `npm run bench`: latency of the hot paths through the whole stack, as medians and p95
 * over repeated requests. Not a test: it prints numbers for the issue notes.
 */
async function measure(label: string, runs: number, fn: () => Promise<unknown>) {
  for (let i = 0; i < 10; i++) await fn(); // warm-up
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await fn();
    samples.push(performance.now() - started);
  }
  console.log(`${label.padEnd(58)} ${summary(samples)}`);
}

/** Which parts to run: `npm run bench -- [gateway] [requestpath] [orgs] [content] [search] [git] [integrations] [scripts] [conversations] [translations] [sites] [spaces] [tenants] [scaleout] [tracing]` (default: all; `tracing` is also part of `requestpath`). */
const SECTIONS = [
  'gateway',
  'requestpath',
  'orgs',
  'content',
  'search',
  'git',
  'integrations',
  'scripts',
  'conversations',
  'translations',
  'sites',
  'spaces',
  'tenants',
  'scaleout',
  'tracing',
] as const;

async function main() {
  const asked = process.argv.slice(2);
  const unknown = asked.filter((name) => !(SECTIONS as readonly string[]).includes(name));
  if (unknown.length) throw new Error(`unknown bench section(s): ${unknown.join(', ')} (known: ${SECTIONS.join(', ')})`);
  const runs = (section: (typeof SECTIONS)[number]) => asked.length === 0 || asked.includes(section);

  // First, before the shared stack exists: it starts stacks of its own (one and two replicas of
  // every process) and wants the cores to itself.
  if (runs('scaleout')) await benchScaleout();
  // Also before it: the request path with tracing off and on, each on a stack of its own.
  if (runs('requestpath') || asked.includes('tracing')) await benchTracing();
  if (asked.length > 0 && asked.every((name) => name === 'scaleout' || name === 'tracing')) return;

  // The git section imports from local repositories, the integrations section's script calls a
  // receiver on 127.0.0.1: file:// and loopback are allowed in this stack only. Translation runs
  // go to the translations section's stand-in provider on 127.0.0.1, started first.
  const translationProvider = await startBenchTranslationProvider();
  const stack = await startTestStack({
    LOG_LEVEL: 'warn',
    RATE_LIMIT_POINTS: '1000000',
    GIT_ALLOWED_PROTOCOLS: 'https,file',
    GIT_ALLOW_PRIVATE_NETWORKS: 'true',
    INTEGRATIONS_ALLOW_PRIVATE_NETWORKS: 'true',
    ...translationProvider.env,
  });
  try {
    const api = apiClient(stack.baseUrl, stack.adminToken);
    const config = loadConfig(baseConfigSchema, { ...stack.processEnv, INTERNAL_HMAC_SECRET: internalSecretOf(stack.dataDir, stack.processEnv) });
    const me = (await api.get('/v1/user')).body.id as string;
    if (runs('gateway')) {
      await measure('GET /healthz (gateway only)', 300, () => api.get('/healthz'));
      await measure('GET /v1/user (auth cached in Redis)', 300, () => api.get('/v1/user'));
    }
    // First of the sections that write: it compares a database of 100 spaces with one of 50,000.
    if (runs('requestpath')) await benchRequestPath(stack, config);
    if (runs('orgs')) await benchOrganizationList(api, config, me);
    // Content before spaces: FerretDB scans whole collections for some queries, so 10,000
    // extra spaces in the same database would be measured as merge cost.
    if (runs('content')) await benchContent(stack);
    if (runs('search')) await benchSearch(stack);
    if (runs('git')) await benchGit(stack);
    if (runs('integrations')) await benchIntegrations(stack);
    if (runs('scripts')) await benchScripts();
    if (runs('conversations')) await benchConversations(stack);
    if (runs('translations')) await benchTranslations(stack, translationProvider);
    // After integrations: every page view is announced to integrations, which would still be
    // working through them.
    if (runs('sites')) await benchSites(stack);
    if (runs('spaces')) await benchSpaceList(api, config, me);
    // Last: its hostile load leaves queues and indexes behind that would weigh on the others.
    if (runs('tenants')) await benchTenants(stack);
  } finally {
    await stack.stop();
    await translationProvider.close();
  }
}

/** A member of 5,000 organizations: the first page and the last page of their list. */
async function benchOrganizationList(api: ReturnType<typeof apiClient>, config: BaseConfig, me: string) {
  await withIdentityAdmin(config, async (ctx) => {
    const now = Date.now();
    const orgs = Array.from({ length: 5_000 }, (_, i) => ({ _id: newId(), title: `Bench ${i}`, createdAt: new Date(now - i), createdBy: me }));
    for (let i = 0; i < orgs.length; i += 1_000) await ctx.models.Organization.insertMany(orgs.slice(i, i + 1_000));
    for (let i = 0; i < orgs.length; i += 250) await Promise.all(orgs.slice(i, i + 250).map((o) => addMembership(ctx, o._id, me, 'read')));
  });
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await api.get(`/v1/orgs?limit=100${cursor ? `&page=${encodeURIComponent(cursor)}` : ''}`);
    cursor = page.body.next?.page;
    if (++pages === 49) break; // stop on the cursor to page 50: the last 100 of ~5,000
  } while (cursor);
  const deep = cursor!;
  await measure('GET /v1/orgs?limit=100 first page of 5,000', 100, () => api.get('/v1/orgs?limit=100'));
  await measure('GET /v1/orgs?limit=100 page 50 of 5,000 (keyset)', 100, () => api.get(`/v1/orgs?limit=100&page=${encodeURIComponent(deep)}`));
}

/**
 * An organization of 10,000 spaces: the first page of its space list and the page that
 * holds the 10,000th space, reached by following cursors (keyset: both should cost the same).
 * The spaces are written straight into content's database; building them over HTTP would
 * only measure space creation.
 */
async function benchSpaceList(api: ReturnType<typeof apiClient>, config: BaseConfig, me: string) {
  const organizationId = (await api.post('/v1/orgs', { title: 'Bench spaces' })).body.id as string;
  const db = await connectDatabase('content', config, createLogger('bench', 'warn'), () => {});
  try {
    const now = Date.now();
    const spaces = Array.from({ length: 10_000 }, (_, i) => ({
      _id: newId(),
      organizationId,
      title: `Space ${i}`,
      emoji: '',
      visibility: 'private',
      parentId: null,
      position: i,
      revisionId: newId(),
      version: 0,
      defaultLevel: 'inherit',
      editMode: 'live',
      mergeRules: { type: 'inherit' },
      language: null,
      createdBy: me,
      createdAt: new Date(now - i),
      updatedAt: new Date(now - i),
      deletedAt: null,
      comments: 0,
      changeRequests: 0,
      changeRequestsOpen: 0,
      changeRequestsDraft: 0,
      changeRequestSeq: 0,
    }));
    for (let i = 0; i < spaces.length; i += 1_000) await db.collection<{ _id: string }>('spaces').insertMany(spaces.slice(i, i + 1_000));
  } finally {
    await db.close();
  }
  const list = (page?: string) => api.get(`/v1/orgs/${organizationId}/spaces?limit=100${page ? `&page=${encodeURIComponent(page)}` : ''}`);
  let cursor: string | undefined;
  for (let pages = 1; pages < 100; pages++) cursor = (await list(cursor)).body.next?.page; // cursor to page 100 (spaces 9,901–10,000)
  const last = await list(cursor);
  if (last.body.items?.length !== 100 || last.body.next)
    throw new Error(`expected the last 100 of 10,000 spaces, got ${JSON.stringify(last.body).slice(0, 200)}`);
  await measure('GET /v1/orgs/{org}/spaces?limit=100 first page of 10,000', 50, () => list());
  await measure('GET /v1/orgs/{org}/spaces?limit=100 page 100 (the 10,000th space)', 50, () => list(cursor));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);

import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { connectDatabase, createLogger, newId, type BaseConfig } from '@quire/runtime';
import { successBody, type ApiClient, type TestStack } from '@quire/testkit';
import { cpuShares } from './bench-stats';

/*
 * `npm run bench -- requestpath` (issue 12, items 4 and 5).
 *
 * 1. The request path: the floor (express + http-proxy-middleware → express answering the same
 *    Space JSON, started here) and Quire's authenticated GET /v1/spaces/{id}, one after the other
 *    with the same load generator and settings; their ratio; the CPU each process of the stack
 *    used during Quire's run (utime + stime from /proc).
 * 2. Point reads and keyset pages do not grow with the data: GET /v1/spaces/{id} with 100 vs
 *    50,000 spaces in the database, a 200-space organization's first page with 1,000 vs 50,000
 *    other spaces. The spaces are copies of one created through the API, inserted straight into
 *    content's database (50,000 API calls would only measure space creation); they are deleted
 *    at the end so later sections see the database as it was. On PostgreSQL the large case is
 *    measured right after the bulk load and again after VACUUM ANALYZE, which autovacuum runs
 *    within a minute of such a load: sessions that planned their statements on the small tables
 *    keep those plans until then (see the README's Performance section).
 */

const CONNECTIONS = 32;
const WARMUP_SECONDS = 2;
const SECONDS = 10;
/** Sequential requests per latency sample set (after 20 warm-up requests). */
const SAMPLES = 200;
const INSERT_BATCH = 1_000;

export interface LoadResult {
  rps: number;
  p50: number;
  p99: number;
}

/** `connections` clients requesting `url` for a warm-up, then for the measured run. */
export async function load(url: string, headers: Record<string, string>, during?: () => void): Promise<LoadResult> {
  await autocannon({ url, connections: CONNECTIONS, duration: WARMUP_SECONDS, headers });
  during?.();
  const result = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS, headers });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0)
    throw new Error(
      `${url}: ${failed} of ${result.requests.total} requests failed (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})`,
    );
  return { rps: result.requests.total / SECONDS, p50: result.latency.p50, p99: result.latency.p99 };
}

// ---- the floor ------------------------------------------------------------------------------

/** Starts one floor process (bench-floor.js); resolves with its port once it listens. */
export function startFloorProcess(args: string[], env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [path.join(__dirname, 'bench-floor.js'), ...args], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`floor ${args[0]} exited with ${code}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, port: (JSON.parse(line) as { port: number }).port }));
  });
}

/** The floor: a bare proxy in front of bench-floor's backend, started with `env` (FLOOR_BODY, FLOOR_HTML_FILE). */
export async function startFloor(env: NodeJS.ProcessEnv): Promise<{ url: string; stop(): void }> {
  const backend = await startFloorProcess(['backend'], env);
  const proxy = await startFloorProcess(['proxy', `http://127.0.0.1:${backend.port}`], {});
  return {
    url: `http://127.0.0.1:${proxy.port}`,
    stop() {
      for (const { child } of [proxy, backend]) {
        child.removeAllListeners('exit');
        child.stdin!.end();
      }
    },
  };
}

/** Samples CPU before a run; the returned function prints each process's share of a core since. */
export function cpuMeter(postgresDatabase: string | undefined) {
  const measure = cpuShares(postgresDatabase);
  return () => {
    const { seconds, shares } = measure();
    console.log(`  CPU during Quire's run (share of one core, over ${seconds.toFixed(1)} s):`);
    for (const [label, cores] of shares) console.log(`    ${label.padEnd(34)} ${(cores * 100).toFixed(0).padStart(4)} %`);
  };
}

// ---- seeding and latency --------------------------------------------------------------------

async function medianLatency(fn: () => Promise<{ status: number; body: unknown }>): Promise<number> {
  for (let i = 0; i < 20; i++) successBody(await fn(), 'warm-up request');
  const samples: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    const response = await fn();
    samples.push(performance.now() - started);
    if (response.status !== 200) throw new Error(`request answered ${response.status}`);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/**
 * p50 of one GET of each space, none of them read before: every read misses content's document
 * cache and goes to the datastore (the cached read of one space is the row above it).
 */
async function medianFirstReads(member: ApiClient, ids: string[]): Promise<number> {
  const samples: number[] = [];
  for (const id of ids) {
    const started = performance.now();
    successBody(await member.get(`/v1/spaces/${id}`), 'GET a space not read before');
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

type SpaceDocument = Record<string, unknown> & { _id: string };

/** Content's `spaces` collection, with copies of one API-made space inserted by organization. */
async function spaceSeeder(config: BaseConfig, templateId: string) {
  const db = await connectDatabase('content', config, createLogger('bench', 'warn'), () => {});
  const spaces = db.collection<SpaceDocument>('spaces');
  const template = await spaces.findOne({ _id: templateId });
  if (!template) throw new Error(`space ${templateId} not found in content's database`);
  const seededOrganizations = new Set<string>();
  let serial = 0;
  return {
    count: () => spaces.countDocuments({}),
    /** `count` copies in `organizationId`, created a millisecond apart (so keyset order is total). */
    async insert(organizationId: string, count: number) {
      seededOrganizations.add(organizationId);
      const now = Date.now();
      const ids: string[] = [];
      for (let start = 0; start < count; start += INSERT_BATCH) {
        const batch = Array.from({ length: Math.min(INSERT_BATCH, count - start) }, (_, i) => {
          const at = new Date(now - (serial++ + i));
          return { ...template, _id: newId(), organizationId, title: `Bench ${serial + i}`, position: serial + i, createdAt: at, updatedAt: at };
        });
        await spaces.insertMany(batch, { ordered: false });
        ids.push(...batch.map((doc) => doc._id));
      }
      return ids;
    },
    /** Deletes every copy (by organization: equality filters every engine serves from an index). */
    async removeAll() {
      for (const organizationId of seededOrganizations) await spaces.deleteMany({ organizationId, _id: { $ne: templateId } });
    },
    close: () => db.close(),
  };
}

/** Spreads `count` spaces over `organizations` fresh organization ids (other tenants). */
async function insertElsewhere(seeder: Awaited<ReturnType<typeof spaceSeeder>>, count: number, organizations: number) {
  const per = Math.ceil(count / organizations);
  for (let left = count; left > 0; left -= per) await seeder.insert(newId(), Math.min(per, left));
}

// ---- the section ----------------------------------------------------------------------------

function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}

async function benchRequestPathRatio(
  baseUrl: string,
  space: { id: string; body: unknown },
  member: ApiClient,
  token: string,
  postgresDatabase: string | undefined,
) {
  const floor = await startFloor({ FLOOR_BODY: JSON.stringify(space.body) });
  let floorResult: LoadResult;
  try {
    floorResult = await load(`${floor.url}/v1/spaces/${space.id}`, {});
  } finally {
    floor.stop();
  }
  successBody(await member.get(`/v1/spaces/${space.id}`), 'GET space as the member');
  let meter: () => void = () => {};
  const quire = await load(`${baseUrl}/v1/spaces/${space.id}`, { authorization: `Bearer ${token}` }, () => {
    meter = cpuMeter(postgresDatabase);
  });
  const row = (name: string, r: LoadResult) =>
    console.log(`  ${name.padEnd(52)} ${r.rps.toFixed(0).padStart(6)} req/s · p50 ${r.p50.toFixed(1)} ms · p99 ${r.p99.toFixed(1)} ms`);
  console.log(`request path: ${CONNECTIONS} connections, ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up (autocannon)`);
  row('floor: express + http-proxy-middleware → express', floorResult);
  row('Quire: GET /v1/spaces/{id} (Bearer, member with edit)', quire);
  console.log(
    `  throughput ${(quire.rps / floorResult.rps).toFixed(2)} of the floor (target ≥ 0.40) · p99 ${ratio(quire.p99, floorResult.p99)} the floor's (target ≤ 3×)`,
  );
  meter();
}

/** What autovacuum does shortly after a bulk load: fresh statistics (and replanned statements), merged GIN pending lists. */
async function vacuumAnalyze(postgresUrl: string): Promise<void> {
  const client = new Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    await client.query('VACUUM (ANALYZE)');
  } finally {
    await client.end();
  }
}

async function benchGrowth(
  config: BaseConfig,
  postgresUrl: string | undefined,
  space: { id: string; organizationId: string },
  admin: ApiClient,
  member: ApiClient,
) {
  const seeder = await spaceSeeder(config, space.id);
  try {
    const present = await seeder.count();
    if (present > 100) throw new Error(`the database already holds ${present} spaces: run this section on a fresh stack`);
    const fresh = await seeder.insert(space.organizationId, 100 - present);
    const pointSmall = await medianLatency(() => member.get(`/v1/spaces/${space.id}`));
    const missSmall = await medianFirstReads(member, fresh.slice(0, 90));

    // A 200-space organization; 1,000 spaces elsewhere (the 100 above included).
    const listed = successBody(await admin.post('/v1/orgs', { title: 'Bench list' }), 'create organization').id as string;
    await seeder.insert(listed, 200);
    await insertElsewhere(seeder, 900, 9);
    const firstPage = () => admin.get(`/v1/orgs/${listed}/spaces?limit=100`);
    const listSmall = await medianLatency(firstPage);

    // 50,000 other spaces: half in the point read's own organization, half in 49 others.
    const many = await seeder.insert(space.organizationId, 24_500);
    await insertElsewhere(seeder, 24_500, 49);
    const total = await seeder.count();
    let pointLarge = await medianLatency(() => member.get(`/v1/spaces/${space.id}`));
    let missLarge = await medianFirstReads(member, many.slice(0, 90));
    let listLarge = await medianLatency(firstPage);
    console.log(`growth: p50 of ${SAMPLES} sequential requests`);
    if (postgresUrl) {
      console.log(
        `  right after the bulk load: GET /v1/spaces/{id} ${pointLarge.toFixed(1)} ms (not cached: ${missLarge.toFixed(1)} ms) · first page ${listLarge.toFixed(1)} ms; after VACUUM ANALYZE:`,
      );
      await vacuumAnalyze(postgresUrl);
      pointLarge = await medianLatency(() => member.get(`/v1/spaces/${space.id}`));
      missLarge = await medianFirstReads(member, many.slice(90, 180));
      listLarge = await medianLatency(firstPage);
    }
    console.log(
      `  GET /v1/spaces/{id}: 100 spaces ${pointSmall.toFixed(1)} ms · ${total.toLocaleString('en')} spaces ${pointLarge.toFixed(1)} ms · ${ratio(pointLarge, pointSmall)} (target ≤ 1.3×)`,
    );
    console.log(
      `  the same, spaces not read before (from the datastore): 100 spaces ${missSmall.toFixed(1)} ms · ${total.toLocaleString('en')} spaces ${missLarge.toFixed(1)} ms · ${ratio(missLarge, missSmall)} (target ≤ 1.3×)`,
    );
    console.log(
      `  GET /v1/orgs/{org}/spaces?limit=100 (200 spaces): 1,000 others ${listSmall.toFixed(1)} ms · ${(total - 200).toLocaleString('en')} others ${listLarge.toFixed(1)} ms · ${ratio(listLarge, listSmall)} (target ≤ 1.3×)`,
    );
  } finally {
    await seeder.removeAll();
    await seeder.close();
  }
}

/**
 * The request-path section. Needs a stack with a rate limit above ~40,000 requests a minute
 * and a database holding at most 100 spaces (run it before sections that make many).
 */
export async function benchRequestPath(stack: TestStack, config: BaseConfig): Promise<void> {
  const organization = await stack.organization({ domain: 'bench-path.test', title: 'Bench request path', roles: ['edit'] as const });
  const member = organization.members.edit;
  const body = successBody(await organization.admin.api.post(`/v1/orgs/${organization.id}/spaces`, { title: 'Request path' }), 'create space');
  const space = { id: body.id as string, organizationId: organization.id, body: successBody(await member.api.get(`/v1/spaces/${body.id}`), 'GET space') };
  const postgresDatabase = stack.env.ferretdbPostgresUrl ? new URL(stack.env.ferretdbPostgresUrl).pathname.slice(1) : undefined;
  console.log(`datastore: ${postgresDatabase ? `FerretDB on PostgreSQL (database ${postgresDatabase})` : 'FerretDB without PostgreSQL, or MongoDB'}`);
  await benchRequestPathRatio(stack.baseUrl, space, member.api, member.token, postgresDatabase);
  await benchGrowth(config, stack.env.ferretdbPostgresUrl, space, organization.admin.api, member.api);
}

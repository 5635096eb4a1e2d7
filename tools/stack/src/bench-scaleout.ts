import os from 'node:os';
import { performance } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { startTestStack, successBody, type TestAccount, type TestStack } from '@quire/testkit';
import { startFloor } from './bench-request-path';
import { cpuShares, quantile } from './bench-stats';
import { readState, type StackState } from './layout';
import { readyFront, replicaUrls, restartEachReplica } from './replicas';

/*
 * `npm run bench -- scaleout`: what a second process of every service and of the gateway
 * (QUIRE_REPLICAS=2) gives on this machine, and whether a rolling restart of all of them under
 * load fails a request. It starts stacks of its own, one at a time (run it with nothing else on
 * the machine):
 *
 * 1. The floor of the request path (bench-floor.js: express + http-proxy-middleware → express
 *    answering the same Space JSON), one pair of processes and two pairs, the load alternating
 *    over the two proxies; started in the same run, loaded with the same generator and settings.
 * 2. A stack with QUIRE_REPLICAS=1, then one with QUIRE_REPLICAS=2, each loaded by autocannon
 *    (CONNECTIONS connections, spread evenly over the gateway replicas' addresses, SECONDS after
 *    WARMUP_SECONDS of warm-up) with GET /v1/spaces/{id} (a member with the edit role, as in the
 *    request-path section), then with a read/write mix: per cycle, four GETs and one PATCH of
 *    one space's title (as the organization's admin: renaming a space is an admin's), the
 *    cycles going round MIX_SPACES spaces. The CPU seconds each kind of process used during each
 *    measured window (utime + stime from /proc, replicas of a service added up).
 * 3. On the 2-replica stack, the same mix through a front that, like a Kubernetes Service, sends
 *    only to gateway replicas whose GET /readyz answers 200 (polled every 200 ms), CONNECTIONS
 *    clients one request at a time each, each client writing a space of its own: SECONDS without
 *    restarts, then while every replica of every service (identity, content, publishing,
 *    integrations, insights, then the gateway) is restarted one after another, as
 *    scaleout.e2e.test.ts does (SIGTERM; next once a new process listens on that replica's port
 *    and answers /readyz with 200). Failed requests (status ≥ 500 or no answer; target 0), p99
 *    during the restarts against p99 without, and each client's last acknowledged title read back.
 */

const CONNECTIONS = 32;
const WARMUP_SECONDS = 2;
const SECONDS = 15;
/** Spaces the mix's cycles go round (autocannon's) and of which each restart-load client writes one. */
const MIX_SPACES = 64;
/** Per mix cycle: this many GETs of a space, then one PATCH of its title (80 % reads). */
const MIX_READS = 4;
const READY_POLL_MS = 200;

interface Run {
  rps: number;
  p50: number;
  p99: number;
  requests: number;
}

/** CPU seconds per kind of process (bench-stats' labels) during one measured window, and the window's length. */
interface CpuWindow {
  seconds: number;
  used: Map<string, number>;
}

/** Where a run's CPU split goes, and the datastore's PostgreSQL database to count in it (bench-stats' labels). */
type Cpu = { window?: CpuWindow; postgresDatabase?: string };

// ---- autocannon -----------------------------------------------------------------------------

/**
 * autocannon against `urls` (connection i to urls[i % urls.length]), cycling through `requests`
 * when given: a warm-up, then the measured run, whose CPU per process goes to `cpu`. Every answer
 * must be a 2xx.
 */
async function cannon(urls: string[], headers: Record<string, string>, requests: autocannon.Request[] | undefined, cpu: Cpu): Promise<Run> {
  const run = async (duration: number) => {
    // autocannon takes a list of addresses (its types say one): connection i goes to the (i mod n)th.
    const url = urls as unknown as string;
    const result = await autocannon({ url, connections: CONNECTIONS, duration, headers, ...(requests ? { requests } : {}) });
    const failed = result.non2xx + result.errors + result.timeouts;
    if (failed > 0)
      throw new Error(
        `${urls.join(' ')}: ${failed} of ${result.requests.total} requests failed (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})`,
      );
    return result;
  };
  await run(WARMUP_SECONDS);
  const measure = cpuMeter(cpu.postgresDatabase);
  const result = await run(SECONDS);
  cpu.window = measure();
  return { rps: result.requests.total / SECONDS, p50: result.latency.p50, p99: result.latency.p99, requests: result.requests.total };
}

const postgresDatabaseOf = (stack: TestStack) => (stack.env.ferretdbPostgresUrl ? new URL(stack.env.ferretdbPostgresUrl).pathname.slice(1) : undefined);

/** Starts counting; the returned function gives CPU seconds per kind of process since. */
function cpuMeter(postgresDatabase: string | undefined): () => CpuWindow {
  const measure = cpuShares(postgresDatabase);
  return () => {
    const { seconds, shares } = measure();
    return { seconds, used: new Map(shares.map(([label, share]) => [label, share * seconds])) };
  };
}

/** The read/write mix as autocannon requests: each cycle takes the next space, reads it MIX_READS times, renames it. */
function mixRequests(spaces: string[]): autocannon.Request[] {
  let next = 0;
  let serial = 0;
  const get = (first: boolean): autocannon.Request => ({
    method: 'GET',
    setupRequest: (request, context: { spaceId?: string }) => {
      if (first) context.spaceId = spaces[next++ % spaces.length];
      return { ...request, path: `/v1/spaces/${context.spaceId}` };
    },
  });
  return [
    get(true),
    ...Array.from({ length: MIX_READS - 1 }, () => get(false)),
    {
      method: 'PATCH',
      setupRequest: (request, context: { spaceId?: string }) => ({
        ...request,
        path: `/v1/spaces/${context.spaceId}`,
        headers: { ...request.headers, 'content-type': 'application/json' },
        body: JSON.stringify({ title: `Mix ${serial++}` }),
      }),
    },
  ];
}

// ---- a stack and its fixture ----------------------------------------------------------------

interface Fixture {
  stack: TestStack;
  state: StackState;
  gateways: string[];
  /** A member with the edit role (the GET load) and the organization's admin (the mix). */
  member: TestAccount;
  admin: TestAccount;
  /** The space the GET load reads, and its JSON (the floor's answer). */
  space: { id: string; body: unknown };
  spaces: string[];
}

async function startScaledStack(replicas: number): Promise<Fixture> {
  const stack = await startTestStack({ LOG_LEVEL: 'warn', RATE_LIMIT_POINTS: '1000000', QUIRE_REPLICAS: String(replicas) });
  try {
    const state = readState(stack.dataDir)!;
    const organization = await stack.organization({
      domain: `bench-scaleout-${replicas}.test`,
      title: `Bench scale-out ×${replicas}`,
      roles: ['edit'] as const,
    });
    const admin = organization.admin;
    const member = organization.members.edit;
    const create = async (title: string) => successBody(await admin.api.post(`/v1/orgs/${organization.id}/spaces`, { title }), 'create space').id as string;
    const id = await create('Scale-out');
    const spaces: string[] = [];
    for (let i = 0; i < MIX_SPACES; i++) spaces.push(await create(`Mix ${i}`));
    const body = successBody(await member.api.get(`/v1/spaces/${id}`), 'GET space as the member');
    return { stack, state, gateways: replicaUrls(state, 'gateway'), member, admin, space: { id, body }, spaces };
  } catch (error) {
    await stack.stop();
    throw error;
  }
}

/** GET of one space, then the mix, on one stack. */
async function measureStack(fixture: Fixture, cpu: { get: Cpu; mix: Cpu }): Promise<{ get: Run; mix: Run }> {
  cpu.get.postgresDatabase = cpu.mix.postgresDatabase = postgresDatabaseOf(fixture.stack);
  const get = await cannon(
    fixture.gateways.map((url) => `${url}/v1/spaces/${fixture.space.id}`),
    { authorization: `Bearer ${fixture.member.token}` },
    undefined,
    cpu.get,
  );
  const mix = await cannon(fixture.gateways, { authorization: `Bearer ${fixture.admin.token}` }, mixRequests(fixture.spaces), cpu.mix);
  return { get, mix };
}

// ---- the rolling restart --------------------------------------------------------------------

interface Load {
  requests: number;
  /** Status ≥ 500 or no answer. */
  failed: number;
  /** Other answers that are not 2xx (none expected). */
  unexpected: number;
  /** What the failures were, by status or error. */
  failures: Map<string, number>;
  latencies: number[];
  seconds: number;
}

/**
 * The mix through a readiness-aware front: `clients` each one request at a time, until `done`
 * resolves; client k reads and renames spaces[k]. Returns what it saw and, per client, the last
 * acknowledged title with any titles whose PATCH got no answer since (they may have been applied).
 */
async function frontLoad(fixture: Fixture, clients: number, done: Promise<unknown>) {
  const front = readyFront(fixture.gateways, READY_POLL_MS);
  const load: Load = { requests: 0, failed: 0, unexpected: 0, failures: new Map(), latencies: [], seconds: 0 };
  const fail = (what: string) => {
    load.failed += 1;
    load.failures.set(what, (load.failures.get(what) ?? 0) + 1);
  };
  const headers = { authorization: `Bearer ${fixture.admin.token}`, 'content-type': 'application/json' };
  /** One request; its status, or 0 when it got no answer. */
  const call = async (method: string, spaceId: string, body?: string): Promise<number> => {
    load.requests += 1;
    const started = performance.now();
    try {
      const response = await fetch(`${front.next()}/v1/spaces/${spaceId}`, { method, headers, body, signal: AbortSignal.timeout(30_000) });
      await response.arrayBuffer();
      load.latencies.push(performance.now() - started);
      if (response.status >= 500) fail(`${method} ${response.status}`);
      else if (response.status >= 300) load.unexpected += 1;
      return response.status;
    } catch (error) {
      fail(`${method} ${error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : 'error'}`);
      return 0;
    }
  };
  let stop = false;
  const stopping = () => void (stop = true);
  done.then(stopping, stopping);
  const started = performance.now();
  const titles = await Promise.all(
    Array.from({ length: clients }, async (_, k) => {
      const spaceId = fixture.spaces[k % fixture.spaces.length];
      const written = { spaceId, acknowledged: '', unanswered: [] as string[] };
      for (let i = 0; !stop; i++) {
        for (let r = 0; r < MIX_READS && !stop; r++) await call('GET', spaceId);
        const title = `Rolling ${k}.${i}.${Date.now()}`;
        const status = await call('PATCH', spaceId, JSON.stringify({ title }));
        if (status === 200) written.acknowledged = title;
        if (status === 200) written.unanswered = [];
        else if (status === 0 || status >= 500) written.unanswered.push(title);
      }
      return written;
    }),
  );
  load.seconds = (performance.now() - started) / 1000;
  await front.stop();
  return { load, titles };
}

/** Clients whose space does not show their last acknowledged title (nor a later one whose PATCH got no answer). */
async function lostWrites(fixture: Fixture, titles: Array<{ spaceId: string; acknowledged: string; unanswered: string[] }>): Promise<number> {
  let lost = 0;
  for (const written of titles) {
    if (!written.acknowledged) continue;
    const title = successBody(await fixture.admin.api.get(`/v1/spaces/${written.spaceId}`), 'read a space back').title as string;
    if (title !== written.acknowledged && !written.unanswered.includes(title)) lost += 1;
  }
  return lost;
}

// ---- the section ----------------------------------------------------------------------------

const ms = (value: number) => `${value.toFixed(1)} ms`;
const times = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

export async function benchScaleout(options: { log?: (line: string) => void } = {}): Promise<void> {
  const log = options.log ?? ((line: string) => console.log(line));
  const cores = os.cpus().length;
  const cpu = { get1: {} as Cpu, get2: {} as Cpu, mix1: {} as Cpu, mix2: {} as Cpu };

  // One replica: its fixture's Space JSON is the floor's answer; the floor runs next to the idle stack, as in the request-path section.
  let floor1: Run;
  let floor2: Run;
  let one: { get: Run; mix: Run };
  let fixture = await startScaledStack(1);
  try {
    const body = { FLOOR_BODY: JSON.stringify(fixture.space.body) };
    const floors: Array<Awaited<ReturnType<typeof startFloor>>> = [];
    try {
      for (let i = 0; i < 2; i++) floors.push(await startFloor(body));
      floor1 = await cannon([`${floors[0].url}/v1/spaces/${fixture.space.id}`], {}, undefined, {});
      floor2 = await cannon(
        floors.map((floor) => `${floor.url}/v1/spaces/${fixture.space.id}`),
        {},
        undefined,
        {},
      );
    } finally {
      for (const floor of floors) floor.stop();
    }
    one = await measureStack(fixture, { get: cpu.get1, mix: cpu.mix1 });
  } finally {
    await fixture.stack.stop();
  }

  fixture = await startScaledStack(2);
  let two: { get: Run; mix: Run };
  let steady: Awaited<ReturnType<typeof frontLoad>>;
  let rolling: Awaited<ReturnType<typeof frontLoad>>;
  let took: Array<{ unit: string; ms: number }> = [];
  let lost: number;
  try {
    two = await measureStack(fixture, { get: cpu.get2, mix: cpu.mix2 });
    // The same load without restarts, then during them (a warm-up first for the fetch clients' connections).
    await frontLoad(fixture, CONNECTIONS, new Promise((resolve) => setTimeout(resolve, WARMUP_SECONDS * 1000)));
    steady = await frontLoad(fixture, CONNECTIONS, new Promise((resolve) => setTimeout(resolve, SECONDS * 1000)));
    const { stack, state } = fixture;
    const restarts = restartEachReplica(stack, state).then((result) => (took = result));
    rolling = await frontLoad(fixture, CONNECTIONS, restarts);
    await restarts;
    lost = await lostWrites(fixture, rolling.titles);
  } finally {
    await fixture.stack.stop();
  }

  const database = postgresDatabaseOf(fixture.stack);
  log(
    `scale-out: QUIRE_REPLICAS=1 vs 2 on ${cores} cores (datastore: ${database ? 'FerretDB on PostgreSQL' : 'FerretDB without PostgreSQL, or MongoDB'}); ` +
      `autocannon, ${CONNECTIONS} connections spread over the gateway replicas, ${SECONDS} s after ${WARMUP_SECONDS} s of warm-up`,
  );
  log(`${''.padEnd(58)} ${'req/s'.padStart(7)} ${'p50'.padStart(9)} ${'p99'.padStart(9)}   against the floor (req/s · p99)`);
  const row = (label: string, run: Run, against?: Run) =>
    log(
      `${label.padEnd(58)} ${run.rps.toFixed(0).padStart(7)} ${ms(run.p50).padStart(9)} ${ms(run.p99).padStart(9)}` +
        (against ? `   ${(run.rps / against.rps).toFixed(2)} · ${times(run.p99, against.p99)}` : ''),
    );
  const gain = (label: string, a: Run, b: Run) =>
    log(`${label.padEnd(58)} ${times(b.rps, a.rps).padStart(7)} ${times(b.p50, a.p50).padStart(9)} ${times(b.p99, a.p99).padStart(9)}`);
  row('floor: express + http-proxy-middleware → express (1 pair)', floor1);
  row('floor: 2 pairs, the load alternating over both proxies', floor2);
  gain('  2 pairs / 1 pair', floor1, floor2);
  row('GET /v1/spaces/{id}, 1 replica', one.get, floor1);
  row('GET /v1/spaces/{id}, 2 replicas (against the 2 pairs)', two.get, floor2);
  gain('  2 replicas / 1 replica', one.get, two.get);
  row(`mix ${MIX_READS}× GET + 1× PATCH title (${(100 / (MIX_READS + 1)).toFixed(0)} % writes), 1 replica`, one.mix);
  row(`mix ${MIX_READS}× GET + 1× PATCH title, 2 replicas`, two.mix);
  gain('  2 replicas / 1 replica', one.mix, two.mix);

  // CPU seconds per kind of process in each measured window.
  const windows = [
    ['GET ×1', cpu.get1.window],
    ['GET ×2', cpu.get2.window],
    ['mix ×1', cpu.mix1.window],
    ['mix ×2', cpu.mix2.window],
  ] as const;
  const labels = new Map<string, number>();
  for (const [, window] of windows) for (const [label, used] of window?.used ?? []) labels.set(label, Math.max(labels.get(label) ?? 0, used));
  const shown = [...labels].filter(([, most]) => most >= 0.05).sort((a, b) => b[1] - a[1]);
  log(`CPU seconds used during each ${SECONDS} s window (${cores} cores: at most ${cores * SECONDS} s), replicas of a service added up:`);
  log(`  ${''.padEnd(34)} ${windows.map(([name]) => name.padStart(8)).join(' ')}`);
  for (const [label] of shown) log(`  ${label.padEnd(34)} ${windows.map(([, window]) => (window?.used.get(label) ?? 0).toFixed(1).padStart(8)).join(' ')}`);
  const total = (window: CpuWindow | undefined) => [...(window?.used.values() ?? [])].reduce((sum, used) => sum + used, 0);
  log(`  ${'all of them'.padEnd(34)} ${windows.map(([, window]) => total(window).toFixed(1).padStart(8)).join(' ')}`);
  log(
    `  ${'of the cores × the window'.padEnd(34)} ${windows.map(([, window]) => `${((total(window) / ((window?.seconds ?? SECONDS) * cores)) * 100).toFixed(0)} %`.padStart(8)).join(' ')}`,
  );

  const restartSeconds = took.reduce((sum, { ms }) => sum + ms, 0) / 1000;
  log(
    `rolling restart on the 2-replica stack: the mix, ${CONNECTIONS} clients one request at a time each (fetch), through a front sending only to ` +
      `gateway replicas whose /readyz answers 200 (polled every ${READY_POLL_MS} ms)`,
  );
  log(`${''.padEnd(58)} ${'requests'.padStart(8)} ${'failed'.padStart(7)} ${'req/s'.padStart(7)} ${'p50'.padStart(9)} ${'p99'.padStart(9)}`);
  const loadRow = (label: string, load: Load) =>
    log(
      `${label.padEnd(58)} ${String(load.requests).padStart(8)} ${String(load.failed).padStart(7)} ${(load.requests / load.seconds).toFixed(0).padStart(7)} ` +
        `${ms(quantile(load.latencies, 0.5)).padStart(9)} ${ms(quantile(load.latencies, 0.99)).padStart(9)}`,
    );
  loadRow(`without restarts (${steady.load.seconds.toFixed(0)} s, just before)`, steady.load);
  loadRow(`during the restarts of all ${took.length} replicas (${rolling.load.seconds.toFixed(0)} s)`, rolling.load);
  log(
    `  p99 during / without: ${times(quantile(rolling.load.latencies, 0.99), quantile(steady.load.latencies, 0.99))} · failed (status ≥ 500 or no answer; target 0): ` +
      `${rolling.load.failed} of ${rolling.load.requests} · other non-2xx: ${rolling.load.unexpected} · acknowledged titles lost: ${lost} of ${rolling.titles.length} clients`,
  );
  if (rolling.load.failures.size)
    log(
      `  failures: ${[...rolling.load.failures]
        .sort((a, b) => b[1] - a[1])
        .map(([what, n]) => `${what} ×${n}`)
        .join(' · ')}`,
    );
  log(
    `  SIGTERM → successor ready, per replica (${restartSeconds.toFixed(0)} s in all): ${took.map(({ unit, ms }) => `${unit} ${(ms / 1000).toFixed(1)} s`).join(' · ')}`,
  );
}

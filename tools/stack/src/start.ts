import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureRedis, freePort, portIsFree, repoRoot, startJaeger, startMongo, waitFor } from '@quire/datastore';
import { bootstrapAdmin, openIdentityAdmin } from '@quire/identity';
import { baseConfigSchema, loadConfig } from '@quire/runtime';
import { serveCommands } from './commands';
import { BACKENDS, dataDirOf, dbPrefixOf, integrationsSecretsKeyOf, internalSecretOf, redisPrefixOf, stateFile, type Backend, type StackState } from './layout';

/**
 * `npm start`: the datastore, the five services and the gateway as child processes, each as
 * QUIRE_REPLICAS processes (default 1). The first replicas' ports derive from PORT (gateway =
 * PORT, services PORT+1…PORT+10, datastore PORT+11, the gateway's metrics PORT+12), falling
 * back to free ports when taken; PORT=0 picks every port free; further replicas take the twelve
 * ports after those, each.
 */

const log = (message: string) => console.log(`[quire] ${message}`);

/**
 * PORT>0: gateway on PORT, the rest derived from it (or free when taken). PORT=0: a random
 * base (below the range the system hands out for outgoing connections) whose ports are all
 * free, so that stacks started at the same moment (tests) do not race for the same ports.
 * The first replicas take PORT…PORT+12 as documented; each further replica twelve more:
 * its gateway, the gateway's metrics, then each service's HTTP and gRPC ports.
 */
async function allocatePorts(requested: number, replicas: number, tracing: boolean) {
  const first = 13;
  const perReplica = 2 + 2 * BACKENDS.length;
  // With QUIRE_TRACING, Jaeger's three ports follow the replicas' (OTLP/HTTP, UI and query API, its gRPC API).
  const jaegerAt = first + perReplica * (replicas - 1);
  const span = jaegerAt + (tracing ? 3 : 0);
  const allFree = async (base: number) => (await Promise.all(Array.from({ length: span }, (_, i) => portIsFree(base + i)))).every(Boolean);
  let base = requested;
  if (base === 0) {
    for (let attempt = 0; attempt < 50 && base === 0; attempt++) {
      const candidate = 20_000 + Math.floor(Math.random() * 12_000);
      if (await allFree(candidate)) base = candidate;
    }
    if (base === 0) throw new Error('no free range of ports found; set PORT');
  } else if (!(await portIsFree(base))) {
    throw new Error(`port ${base} is already in use: set PORT to another port`);
  }
  const pick = async (offset: number) => (base + offset < 65536 && (await portIsFree(base + offset)) ? base + offset : freePort());
  const offsetOf = (replica: number, slot: number) => (replica === 0 ? slot : first + perReplica * (replica - 1) + slot);
  const services = {} as Record<Backend, Array<{ http: number; grpc: number }>>;
  const gateways: Array<{ port: number; metrics: number }> = [];
  for (let r = 0; r < replicas; r++) {
    // Replica 0: gateway PORT, services PORT+1…+10, metrics PORT+12 (PORT+11 is the datastore's).
    gateways.push({ port: r === 0 ? base : await pick(offsetOf(r, 0)), metrics: await pick(r === 0 ? 12 : offsetOf(r, 1)) });
    for (const [i, name] of BACKENDS.entries()) {
      (services[name] ??= []).push({
        http: await pick(r === 0 ? 1 + 2 * i : offsetOf(r, 2 + 2 * i)),
        grpc: await pick(r === 0 ? 2 + 2 * i : offsetOf(r, 3 + 2 * i)),
      });
    }
  }
  const jaeger = tracing ? { otlp: await pick(jaegerAt), ui: await pick(jaegerAt + 1), grpc: await pick(jaegerAt + 2) } : undefined;
  return { gateways, services, datastore: await pick(11), jaeger };
}

/** QUIRE_TRACING: run Jaeger beside the stack and send every process's spans there. */
const tracingAsked = () => ['1', 'true', 'yes'].includes((process.env.QUIRE_TRACING ?? '').trim().toLowerCase());

/** QUIRE_REPLICAS: how many processes of each service and of the gateway (1 to 8). */
function replicaCount(): number {
  const value = process.env.QUIRE_REPLICAS?.trim() || '1';
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 8) throw new Error(`QUIRE_REPLICAS must be a whole number from 1 to 8, not '${value}'`);
  return count;
}

const unitName = (unit: Supervised) => (unit.replica > 0 ? `${unit.name} (replica ${unit.replica + 1})` : unit.name);

let shutdown: ((code: number) => Promise<void>) | undefined;

interface Supervised {
  name: string;
  replica: number;
  child?: ChildProcess;
  crashes: number[];
}

async function main() {
  const root = repoRoot();
  const dataDir = dataDirOf();
  const replicas = replicaCount();
  const ports = await allocatePorts(Number(process.env.PORT ?? 8080), replicas, tracingAsked());
  const children: Supervised[] = [];
  let stopping = false;
  const cleanups: Array<() => Promise<void>> = [];

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    log('stopping…');
    // Gateway first so no new request reaches a stopping service; then the services.
    const order = [children.filter((c) => c.name === 'gateway'), children.filter((c) => c.name !== 'gateway')];
    for (const group of order) await Promise.all(group.map((c) => stopChild(c.child)));
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
    rmSync(stateFile(dataDir), { force: true });
    log('stopped');
    process.exit(code);
  };
  shutdown = stopAll;
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));
  // Started by a test over an IPC channel (testkit's startTestStack): the stack goes when that process does, however it ends.
  if (process.send) {
    process.once('disconnect', () => void stopAll(0));
    if (!process.connected) void stopAll(0);
  }

  const mongo = await startMongo({ dataDir, port: ports.datastore, log });
  cleanups.push(() => mongo.stop());
  const redis = await ensureRedis(process.env.REDIS_URL, { dataDir, log });
  cleanups.push(() => redis.stop());

  const jaeger = ports.jaeger ? await startJaeger({ dataDir, ports: ports.jaeger, log }) : undefined;
  if (jaeger) cleanups.push(() => jaeger.stop());

  const gatewayUrls = ports.gateways.map(({ port }) => `http://127.0.0.1:${port}`);
  const gatewayUrl = gatewayUrls[0];
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: process.env.NODE_ENV ?? 'development',
    MONGODB_URI: mongo.uri,
    // Where FerretDB stores, for the indexes services create there (only on its PostgreSQL backend).
    QUIRE_FERRETDB_POSTGRES_URL: mongo.postgresUrl,
    DB_PREFIX: dbPrefixOf(),
    REDIS_URL: redis.url,
    REDIS_PREFIX: redisPrefixOf(dataDir),
    INTERNAL_HMAC_SECRET: internalSecretOf(dataDir),
    INTEGRATIONS_SECRETS_KEY: integrationsSecretsKeyOf(dataDir),
    PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL || gatewayUrl,
    QUIRE_DATA_DIR: dataDir,
    QUIRE_SUPERVISOR_PID: String(process.pid),
    // Several replicas: a stopping one says it is not ready for a moment first, so that the others take its work (rolling restarts).
    SHUTDOWN_DRAIN_MS: process.env.SHUTDOWN_DRAIN_MS ?? (replicas > 1 ? '1500' : '0'),
    // Spans to Jaeger, in batches every half second (not the SDK's 5 s: a developer is looking).
    ...(jaeger
      ? {
          OTEL_EXPORTER_OTLP_ENDPOINT: process.env.OTEL_EXPORTER_OTLP_ENDPOINT || jaeger.otlpUrl,
          OTEL_BSP_SCHEDULE_DELAY: process.env.OTEL_BSP_SCHEDULE_DELAY || '500',
        }
      : {}),
  };
  const grpcAddresses = (name: Backend) => ports.services[name].map(({ grpc }) => `127.0.0.1:${grpc}`);
  const httpUrls = (name: Backend) => ports.services[name].map(({ http }) => `http://127.0.0.1:${http}`);
  for (const name of BACKENDS) {
    // Every replica's address: gRPC clients and the gateway spread their calls over them.
    env[`${name.toUpperCase()}_GRPC_ADDR`] = grpcAddresses(name).join(',');
    env[`${name.toUpperCase()}_HTTP_URL`] = httpUrls(name).join(',');
  }

  const launch = (unit: Supervised, extraEnv: NodeJS.ProcessEnv) => {
    // Tracing (when OTEL_* asks for it): each process names its service, and which replica it is.
    const resource = [`service.namespace=quire`, `service.instance.id=${unit.name}-${unit.replica}`, env.OTEL_RESOURCE_ATTRIBUTES].filter(Boolean).join(',');
    const child = spawn(process.execPath, [path.join(root, 'services', unit.name, 'dist', 'main.js')], {
      env: { ...env, OTEL_SERVICE_NAME: unit.name, OTEL_RESOURCE_ATTRIBUTES: resource, ...extraEnv },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    unit.child = child;
    child.once('exit', (code, signal) => {
      if (stopping) return;
      // A crashed service is restarted with backoff; the others keep serving meanwhile.
      const now = Date.now();
      unit.crashes = [...unit.crashes.filter((t) => now - t < 60_000), now];
      if (unit.crashes.length > 5) {
        log(`${unitName(unit)} crashed ${unit.crashes.length} times in a minute: giving up`);
        void stopAll(1);
        return;
      }
      const delay = 250 * 2 ** (unit.crashes.length - 1);
      log(`${unitName(unit)} exited (${signal ?? code}); restarting in ${delay} ms`);
      setTimeout(() => !stopping && launch(unit, extraEnv), delay);
    });
  };

  const waitReady = (name: string, url: string) =>
    waitFor(`${name} to be ready`, async () => (await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1_000) })).ok, 60_000);

  await Promise.all(
    BACKENDS.flatMap((name) =>
      ports.services[name].map(async ({ http, grpc }, replica) => {
        const unit: Supervised = { name, replica, crashes: [] };
        children.push(unit);
        launch(unit, { HTTP_PORT: String(http), GRPC_PORT: String(grpc) });
        await waitReady(name, `http://127.0.0.1:${http}`);
      }),
    ),
  );
  await Promise.all(
    ports.gateways.map(async ({ port, metrics }, replica) => {
      const gateway: Supervised = { name: 'gateway', replica, crashes: [] };
      children.push(gateway);
      // Metrics on a listener of their own, never on the public one (on BIND_HOST, like the rest).
      launch(gateway, { PORT: String(port), METRICS_PORT: String(metrics) });
      await waitReady('gateway', gatewayUrls[replica]);
    }),
  );

  // Identity's database for the operator commands, open while the stack runs (the admin's bootstrap, the control socket).
  const identityAdmin = await openIdentityAdmin(loadConfig(baseConfigSchema, env));
  cleanups.push(() => identityAdmin.close());
  const tokenFile = path.join(dataDir, 'admin-token');
  if (!(await adminTokenWorks(tokenFile, gatewayUrl))) {
    const admin = await bootstrapAdmin(identityAdmin.ctx, {
      email: process.env.QUIRE_ADMIN_EMAIL || 'admin@quire.local',
      organizationTitle: process.env.QUIRE_ADMIN_ORG || 'Quire',
    });
    writeFileSync(tokenFile, `${admin.token}\n`, { mode: 0o600 });
    log(`created admin user ${admin.userId} in organization ${admin.organizationId}; token in ${tokenFile}`);
  }
  // The operator commands without a process each (tests make their accounts there); the CLI works without it.
  const controlSocket = path.join(dataDir, 'control.sock');
  rmSync(controlSocket, { force: true });
  const control = await serveCommands(controlSocket, identityAdmin.ctx).catch((error: Error) => {
    log(`no control socket (${error.message}): the CLI still works`);
    return undefined;
  });
  if (control)
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          control.close(() => resolve());
          control.closeAllConnections();
        }),
    );
  const state: StackState = {
    pid: process.pid,
    gatewayUrl,
    gatewayMetricsUrl: `http://127.0.0.1:${ports.gateways[0].metrics}/metrics`,
    replicas: {
      gateway: ports.gateways.map(({ port, metrics }) => ({ url: `http://127.0.0.1:${port}`, metricsUrl: `http://127.0.0.1:${metrics}/metrics` })),
      ...(Object.fromEntries(
        BACKENDS.map((name) => [
          name,
          ports.services[name].map(({ http, grpc }) => ({
            httpUrl: `http://127.0.0.1:${http}`,
            grpcAddress: `127.0.0.1:${grpc}`,
            metricsUrl: `http://127.0.0.1:${http}/metrics`,
          })),
        ]),
      ) as Omit<StackState['replicas'], 'gateway'>),
    },
    mongodbUri: mongo.uri,
    dbPrefix: env.DB_PREFIX!,
    redisUrl: redis.url,
    redisPrefix: env.REDIS_PREFIX!,
    ferretdbPostgresUrl: mongo.postgresUrl,
    controlSocket: control ? controlSocket : undefined,
    jaeger: jaeger ? { uiUrl: jaeger.uiUrl, otlpUrl: jaeger.otlpUrl } : undefined,
  };
  writeFileSync(stateFile(dataDir), JSON.stringify(state, null, 2), { mode: 0o600 });
  if (jaeger) log(`traces: ${jaeger.uiUrl}/api/traces?service=gateway (Jaeger's query API; spans exported to ${jaeger.otlpUrl})`);
  log(`Quire is ready at ${gatewayUrl}`);
}

/** False when there is no admin token yet, or when it no longer opens (e.g. a wiped database). */
async function adminTokenWorks(tokenFile: string, gatewayUrl: string): Promise<boolean> {
  if (!existsSync(tokenFile)) return false;
  const token = readFileSync(tokenFile, 'utf8').trim();
  const response = await fetch(`${gatewayUrl}/v1/user`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(10_000) });
  return response.status !== 401;
}

function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

main().catch((error) => {
  console.error(`[quire] failed to start: ${error instanceof Error ? error.message : String(error)}`);
  if (shutdown) void shutdown(1);
  else process.exit(1);
});

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestStack, successBody } from '@quire/testkit';
import { cpuMeter, load, startFloor, type LoadResult } from './bench-request-path';

/*
 * `npm run bench -- requestpath` (or `-- tracing` alone), its tracing part (issue 29, item 6):
 * authenticated GET /v1/spaces/{id} on four stacks started one after another, with tracing off
 * (no OTEL_*), on with every trace sampled, on at the chart's default sampling
 * (parentbased_traceidratio, 10 % of new traces), and off again; each against the floor measured
 * in the same run. OTEL_NODE_DISABLED_INSTRUMENTATIONS set here applies to the traced stacks
 * (which instrumentation costs what). The spans go over OTLP/HTTP
 * (protobuf, the SDK's default) to a sink here that reads and drops them, counting the bytes.
 */

const MODES = [
  { name: 'tracing off', env: {} },
  { name: 'tracing on, 100 % sampled', env: { OTEL_TRACES_SAMPLER: 'always_on' } },
  { name: 'tracing on, default sampling (10 %)', env: { OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' } },
  // Again last: a stack started later in a run measures differently (by 10 to 50 % on two cores), so "off" is the mean of the first and the last.
  { name: 'tracing off (again)', env: {} },
] as const;

/** An OTLP/HTTP endpoint that drops what it gets and counts it. */
async function startSink() {
  let bytes = 0;
  let requests = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    take() {
      const taken = { bytes, requests };
      bytes = 0;
      requests = 0;
      return taken;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function benchTracing(): Promise<void> {
  const sink = await startSink();
  const results: Array<{ name: string; run: LoadResult; exported: { bytes: number; requests: number } }> = [];
  let body: unknown;
  try {
    for (const mode of MODES) {
      const tracing = mode.name.startsWith('tracing off') ? {} : { OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, ...mode.env };
      const disabled = process.env.OTEL_NODE_DISABLED_INSTRUMENTATIONS;
      const stack = await startTestStack({
        LOG_LEVEL: 'warn',
        RATE_LIMIT_POINTS: '1000000',
        ...tracing,
        ...(disabled && !mode.name.startsWith('tracing off') ? { OTEL_NODE_DISABLED_INSTRUMENTATIONS: disabled } : {}),
      });
      try {
        const organization = await stack.organization({ domain: 'bench-tracing.test', title: 'Bench tracing', roles: ['edit'] as const });
        const member = organization.members.edit;
        const space = successBody(await organization.admin.api.post(`/v1/orgs/${organization.id}/spaces`, { title: 'Traced' }), 'create space');
        body = successBody(await member.api.get(`/v1/spaces/${space.id}`), 'GET space');
        const postgresDatabase = stack.env.ferretdbPostgresUrl ? new URL(stack.env.ferretdbPostgresUrl).pathname.slice(1) : undefined;
        let meter: () => void = () => {};
        const run = await load(`${stack.baseUrl}/v1/spaces/${space.id}`, { authorization: `Bearer ${member.token}` }, () => {
          sink.take();
          meter = cpuMeter(postgresDatabase);
        });
        // The last batches (the SDK exports every OTEL_BSP_SCHEDULE_DELAY, 5 s by default).
        await new Promise((resolve) => setTimeout(resolve, 6_000));
        results.push({ name: mode.name, run, exported: sink.take() });
        console.log(`${mode.name}:`);
        meter();
      } finally {
        await stack.stop();
      }
    }
  } finally {
    await sink.close();
  }
  const floor = await startFloor({ FLOOR_BODY: JSON.stringify(body) });
  let floorRun: LoadResult;
  try {
    floorRun = await load(`${floor.url}/v1/spaces/x`, {});
  } finally {
    floor.stop();
  }
  const off = (results[0].run.rps + results[results.length - 1].run.rps) / 2;
  console.log('tracing: GET /v1/spaces/{id}, each mode on a stack of its own, then the floor');
  console.log(
    `  ${'floor: express + http-proxy-middleware → express'.padEnd(40)} ${floorRun.rps.toFixed(0).padStart(6)} req/s · p99 ${floorRun.p99.toFixed(1)} ms`,
  );
  for (const { name, run, exported } of results) {
    const spans = exported.bytes > 0 ? ` · exported ${(exported.bytes / 1024 / 1024).toFixed(1)} MB in ${exported.requests} batches` : '';
    console.log(
      `  ${name.padEnd(40)} ${run.rps.toFixed(0).padStart(6)} req/s · p99 ${run.p99.toFixed(1)} ms · ${(run.rps / off).toFixed(2)} of tracing off (mean of both) · ${(run.rps / floorRun.rps).toFixed(2)} of the floor${spans}`,
    );
  }
  console.log('  targets: off costs nothing measurable · default sampling ≥ 0.90 of off · default sampling ≥ 0.60 of the floor');
}

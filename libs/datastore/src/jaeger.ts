import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { findGoTool, spawnChild, stopChild, superviseChild, waitFor } from './process';

/*
 * Jaeger (v2, all in one, traces in memory) for developers and the tracing suite: an OTLP/HTTP
 * receiver, the query API and the UI, each on 127.0.0.1 only, and nothing else listening (its own
 * metrics are off). Built once by scripts/install-jaeger.sh, like FerretDB.
 */

export interface JaegerHandle {
  /** Where services export their spans (OTEL_EXPORTER_OTLP_ENDPOINT). */
  otlpUrl: string;
  /** The UI, and the query API under /api (e.g. /api/traces/<trace id>). */
  uiUrl: string;
  stop(): Promise<void>;
  detach(): void;
}

/** Jaeger's configuration (an OpenTelemetry Collector's): OTLP/HTTP in, memory storage, the query extension. */
function configOf(ports: { otlp: number; ui: number; grpc: number }, maxTraces: number): string {
  return `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics:
      level: none
    logs:
      level: warn
extensions:
  jaeger_storage:
    backends:
      memory_store:
        memory:
          max_traces: ${maxTraces}
  jaeger_query:
    storage:
      traces: memory_store
    http:
      endpoint: 127.0.0.1:${ports.ui}
    grpc:
      endpoint: 127.0.0.1:${ports.grpc}
receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${ports.otlp}
processors:
  batch:
    timeout: 200ms
exporters:
  jaeger_storage_exporter:
    trace_storage: memory_store
`;
}

/** Starts Jaeger on the given loopback ports, supervised (restarted if it exits); resolves once its UI answers. */
export async function startJaeger(options: {
  dataDir: string;
  ports: { otlp: number; ui: number; grpc: number };
  maxTraces?: number;
  log?: (line: string) => void;
}): Promise<JaegerHandle> {
  const log = options.log ?? (() => {});
  const binary = findGoTool('jaeger', log);
  if (!binary) throw new Error('Jaeger is not installed (scripts/install-jaeger.sh needs Go)');
  mkdirSync(options.dataDir, { recursive: true });
  const config = path.join(options.dataDir, 'jaeger.yaml');
  writeFileSync(config, configOf(options.ports, options.maxTraces ?? 10_000));
  const spawnJaeger = () => spawnChild(binary, ['--config', config], { env: { ...process.env, DO_NOT_TRACK: '1' } });
  const first = spawnJaeger();
  const uiUrl = `http://127.0.0.1:${options.ports.ui}`;
  let exited = false;
  first.child.once('exit', () => (exited = true));
  try {
    await waitFor(`Jaeger on port ${options.ports.ui}`, async () => {
      if (exited) throw new Error(`Jaeger exited: ${first.output()}`);
      return fetch(`${uiUrl}/api/services`, { signal: AbortSignal.timeout(1_000) }).then(
        (response) => response.ok,
        () => false,
      );
    });
  } catch (error) {
    await stopChild(first.child);
    throw error;
  }
  log(`jaeger: UI at ${uiUrl}, OTLP/HTTP at http://127.0.0.1:${options.ports.otlp}`);
  const supervisor = superviseChild('jaeger', first, spawnJaeger, log);
  return { otlpUrl: `http://127.0.0.1:${options.ports.otlp}`, uiUrl, stop: () => supervisor.stop(), detach: () => supervisor.detach() };
}

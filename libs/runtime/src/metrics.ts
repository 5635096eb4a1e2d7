import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** A process's Prometheus registry (a service's, served on its own port at /metrics). */
export type MetricsRegistry = Registry;

/**
 * The counter `spec.name` of a registry, made on first use: the one way a module declares a
 * counter of its service's process (every caller naming it gets the same one).
 */
export function counterOf<L extends string>(registry: Registry, spec: { name: string; help: string; labelNames: readonly L[] }): Counter<L> {
  const existing = registry.getSingleMetric(spec.name);
  if (existing) return existing as Counter<L>;
  return new Counter({ name: spec.name, help: spec.help, labelNames: spec.labelNames, registers: [registry] });
}

/** Buckets of request and call durations, in seconds (OpenTelemetry's advice for http.server.request.duration). */
export const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10];

/** The histogram `spec.name` of a registry, made on first use (as counterOf). */
export function histogramOf<L extends string>(
  registry: Registry,
  spec: { name: string; help: string; labelNames: readonly L[]; buckets?: number[] },
): Histogram<L> {
  const existing = registry.getSingleMetric(spec.name);
  if (existing) return existing as Histogram<L>;
  return new Histogram({ name: spec.name, help: spec.help, labelNames: spec.labelNames, buckets: spec.buckets ?? DURATION_BUCKETS, registers: [registry] });
}

/** What a gauge read at scrape time reports: a value per set of labels. */
export type GaugeReadings<L extends string> = Array<{ labels: Partial<Record<L, string>>; value: number }>;

/** How long one reading of a gauge may take before a scrape goes on without it (a datastore out of reach). */
const READING_TIMEOUT_MS = 2_000;

/** The readers of each gauge gaugeOf made, by registry and name. */
const gaugeReaders = new WeakMap<Registry, Map<string, Set<() => Promise<GaugeReadings<string>>>>>();

/**
 * Reports `read` under the gauge `spec.name` of a registry, made on first use: at each scrape
 * the gauge shows what every reader added for that registry and name reads then (two queues of
 * one process, each its own reader, both appear). A reader that fails, or takes over 2 s, is left
 * out of that scrape, which goes on without it. Returns what removes the reader (a queue closed).
 */
export function gaugeOf<L extends string>(
  registry: Registry,
  spec: { name: string; help: string; labelNames: readonly L[] },
  read: () => Promise<GaugeReadings<L>>,
): () => void {
  let byName = gaugeReaders.get(registry);
  if (!byName) gaugeReaders.set(registry, (byName = new Map()));
  let readers = byName.get(spec.name);
  if (!readers) {
    const each = (readers = new Set());
    byName.set(spec.name, each);
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: spec.labelNames,
      registers: [registry],
      async collect() {
        const readings = await Promise.all([...each].map((reader) => withinTimeout(reader()).catch(() => [])));
        this.reset();
        for (const { labels, value } of readings.flat()) this.set(labels, value);
      },
    });
  }
  const reader = read as () => Promise<GaugeReadings<string>>;
  readers.add(reader);
  return () => void readers.delete(reader);
}

/** `reading`, or a rejection once READING_TIMEOUT_MS is over. */
function withinTimeout<T>(reading: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('the reading took too long')), READING_TIMEOUT_MS);
  });
  return Promise.race([reading, late]).finally(() => clearTimeout(timer));
}

/** Buckets of datastore and Redis calls, in seconds (most take a millisecond or two). */
const CALL_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The durations of a process's calls to its datastore and to Redis, as OpenTelemetry's
 * db.client.operation.duration names them: by system (mongodb, redis), namespace (the
 * database), operation (the command's name) and error type (empty when it succeeded).
 */
export function dbOperationDurations(registry: Registry) {
  return histogramOf(registry, {
    name: 'db_client_operation_duration_seconds',
    help: 'Duration of the calls to the datastore and to Redis, by system, namespace, operation (the command) and error type (empty: it succeeded)',
    labelNames: ['db_system_name', 'db_namespace', 'db_operation_name', 'error_type'] as const,
    buckets: CALL_BUCKETS,
  });
}

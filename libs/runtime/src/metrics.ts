import { Counter, Histogram, type Registry } from 'prom-client';

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

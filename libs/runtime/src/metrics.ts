import { Counter, type Registry } from 'prom-client';

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

/** The sample at quantile `q` (0–1) of `samples` (nearest rank). */
export function quantile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

/** "p50 … ms · p95 … ms · n=…" of latency samples in milliseconds. */
export function summary(samples: readonly number[]): string {
  return `p50 ${quantile(samples, 0.5).toFixed(2)} ms · p95 ${quantile(samples, 0.95).toFixed(2)} ms · n=${samples.length}`;
}

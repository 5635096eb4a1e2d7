import type { RequestListener } from 'node:http';
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Prometheus metrics of the gateway: default process metrics plus per-route traffic. */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'quire_http_requests_total',
    help: 'HTTP requests answered by the gateway',
    labelNames: ['service', 'method', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'quire_http_request_duration_seconds',
    help: 'Time to answer an HTTP request at the gateway',
    labelNames: ['service', 'method'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // Each series' child, found once: prom-client would otherwise hash the labels on every request.
  const series = new Map<string, { count: ReturnType<typeof requests.labels>; time: ReturnType<typeof duration.labels> }>();
  return {
    registry,
    observe(service: string, method: string, status: number, seconds: number) {
      const key = `${service} ${method} ${status}`;
      let child = series.get(key);
      if (!child) {
        child = { count: requests.labels(service, method, String(status)), time: duration.labels(service, method) };
        series.set(key, child);
      }
      child.count.inc();
      child.time.observe(seconds);
    },
  };
}

/**
 * The internal metrics listener's handler: GET /metrics, and a 404 for anything else. It runs
 * on METRICS_PORT, apart from the public listener, so that only the network that can reach
 * that port (the scraper) reads the gateway's traffic figures.
 */
export function metricsListener(registry: Pick<Registry, 'contentType' | 'metrics'>): RequestListener {
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method !== 'GET' || path !== '/metrics') {
      res
        .writeHead(404, { 'content-type': 'application/json; charset=utf-8' })
        .end(JSON.stringify({ error: { code: 404, message: `No route for ${req.method} ${path}` } }));
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: { code: 500, message: 'Internal error' } })),
    );
  };
}

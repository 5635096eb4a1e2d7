// Writes the chart's Grafana dashboards, dashboards/<name>.json: one per service and an overview.
// The chart loads them into ConfigMaps with global.metrics.dashboards.enabled. Edit this file, not
// the JSON, and run from the repository root (after `npm ci`: the output is formatted by prettier):
//
//   node deploy/helm/quire/dashboards/generate.mjs           # writes the files
//   node deploy/helm/quire/dashboards/generate.mjs --check   # exits 1 when a file is not what it writes
//
// A service's series are those of job="<service>" (the chart's ServiceMonitors take the job from the
// Service's app.kubernetes.io/name label) in the chosen namespace; every replica is its own target (pod).
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';

const BACKENDS = ['identity', 'content', 'publishing', 'integrations', 'insights'];
const SERVICES = ['gateway', ...BACKENDS];
const DS = { type: 'prometheus', uid: '${datasource}' };
const RATE = '$__rate_interval';
/** The colours of a 5xx ratio: green, orange from 1 %, red from 5 %. */
const ERROR_RATIO_STEPS = [
  { color: 'green', value: null },
  { color: 'orange', value: 0.01 },
  { color: 'red', value: 0.05 },
];

/** A Prometheus query of a panel. */
const q = (expr, legendFormat) => ({ datasource: DS, expr, legendFormat, range: true });

/** A time series panel; width in grid columns (of 24). */
function series(title, description, targets, { unit = 'short', w = 12, h = 8, max, stack = false } = {}) {
  return {
    type: 'timeseries',
    title,
    description,
    datasource: DS,
    w,
    h,
    fieldConfig: {
      defaults: {
        unit,
        min: 0,
        ...(max === undefined ? {} : { max }),
        custom: { drawStyle: 'line', lineWidth: 1, fillOpacity: stack ? 30 : 10, showPoints: 'never', stacking: { mode: stack ? 'normal' : 'none' } },
      },
      overrides: [],
    },
    options: { legend: { displayMode: 'list', placement: 'bottom', showLegend: true }, tooltip: { mode: 'multi', sort: 'desc' } },
    targets,
  };
}

/** A single-value panel (the last value of one query). */
function stat(title, description, expr, { unit = 'short', w = 6, h = 4, thresholds } = {}) {
  return {
    type: 'stat',
    title,
    description,
    datasource: DS,
    w,
    h,
    fieldConfig: {
      defaults: {
        unit,
        thresholds: { mode: 'absolute', steps: thresholds ?? [{ color: 'green', value: null }] },
      },
      overrides: [],
    },
    options: { reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false }, colorMode: 'value', graphMode: 'area', textMode: 'auto' },
    targets: [q(expr, title)],
  };
}

const row = (title) => ({ type: 'row', title, collapsed: false, panels: [] });

/** Places the panels on the grid (rows span the width; panels fill rows of 24 columns) and numbers them. */
function layout(items) {
  const panels = [];
  let x = 0;
  let y = 0;
  let rowHeight = 0;
  const newLine = () => {
    y += rowHeight;
    x = 0;
    rowHeight = 0;
  };
  for (const item of items) {
    if (item.type === 'row') {
      newLine();
      panels.push({ ...item, id: panels.length + 1, gridPos: { h: 1, w: 24, x: 0, y } });
      y += 1;
      continue;
    }
    const { w, h, ...panel } = item;
    if (x + w > 24) newLine();
    panels.push({ ...panel, id: panels.length + 1, gridPos: { h, w, x, y } });
    x += w;
    rowHeight = Math.max(rowHeight, h);
  }
  return panels;
}

function variable(name, label, query, { all = false } = {}) {
  return {
    name,
    label,
    type: 'query',
    datasource: DS,
    definition: query,
    query: { query, refId: `${name}-variable` },
    refresh: 2,
    sort: 1,
    hide: 0,
    regex: '',
    multi: all,
    includeAll: all,
    ...(all ? { allValue: '.+' } : {}),
    current: all ? { selected: true, text: ['All'], value: ['$__all'] } : {},
    options: [],
  };
}

function dashboard({ uid, title, description, jobs, withPod, panels }) {
  const up = `up{job=~"${jobs.join('|')}"}`;
  const list = [
    { name: 'datasource', label: 'Data source', type: 'datasource', query: 'prometheus', regex: '', hide: 0, current: {}, options: [] },
    variable('namespace', 'Namespace', `label_values(${up}, namespace)`),
  ];
  if (withPod) list.push(variable('pod', 'Pod', `label_values(up{job=~"${jobs.join('|')}", namespace="$namespace"}, pod)`, { all: true }));
  return {
    uid,
    title,
    description,
    tags: ['quire'],
    editable: true,
    graphTooltip: 1,
    refresh: '30s',
    schemaVersion: 39,
    version: 1,
    time: { from: 'now-3h', to: 'now' },
    timepicker: {},
    timezone: 'browser',
    links: [{ type: 'dashboards', title: 'Quire', tags: ['quire'], asDropdown: true, includeVars: true, keepTime: true }],
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: 'grafana', uid: '-- Grafana --' },
          enable: true,
          hide: true,
          iconColor: 'rgba(0, 211, 255, 1)',
          name: 'Annotations & Alerts',
          type: 'dashboard',
        },
      ],
    },
    templating: { list },
    panels: layout(panels),
  };
}

/** A label matcher list: the namespace, the job(s), the pods chosen, and more. */
function selector(jobs, { pod = true } = {}) {
  const job = jobs.length === 1 ? `job="${jobs[0]}"` : `job=~"${jobs.join('|')}"`;
  return (...more) => `{${['namespace="$namespace"', job, ...(pod ? ['pod=~"$pod"'] : []), ...more].join(', ')}}`;
}

/** histogram_quantile of a histogram's rate, by some labels. */
const quantile = (p, metric, sel, by) => `histogram_quantile(${p}, sum by (le${by ? `, ${by}` : ''}) (rate(${metric}_bucket${sel}[${RATE}])))`;

/** a / b of two rates of the same counter, by some labels; `part` narrows the numerator. */
const ratio = (metric, sel, part, by) => {
  const sum = by ? `sum by (${by}) ` : 'sum';
  return `${sum}(rate(${metric}${sel(part)}[${RATE}]))\n/\n${sum}(rate(${metric}${sel()}[${RATE}]))`;
};

const PERCENTILES = [
  [0.5, 'p50'],
  [0.95, 'p95'],
  [0.99, 'p99'],
];

const percentiles = (what, metric, sel, by, legend) =>
  PERCENTILES.map(([p, name]) =>
    series(`${what}: ${name} by ${legend}`, `${name} of ${metric} over the pods chosen.`, [q(quantile(p, metric, sel(), by), `{{${by}}}`)], {
      unit: 's',
      w: 8,
    }),
  );

function processPanels(sel, by = 'pod') {
  const agg = by === 'pod' ? (e) => e : (e) => `sum by (${by}) (${e})`;
  return [
    row('Process'),
    series(
      'CPU',
      'process_cpu_seconds_total (prom-client default metrics): cores used.',
      [q(agg(`rate(process_cpu_seconds_total${sel()}[${RATE}])`), `{{${by}}}`)],
      {
        w: 8,
      },
    ),
    series('Resident memory', 'process_resident_memory_bytes (prom-client default metrics).', [q(agg(`process_resident_memory_bytes${sel()}`), `{{${by}}}`)], {
      unit: 'bytes',
      w: 8,
    }),
    series(
      'Event loop lag p99',
      'nodejs_eventloop_lag_p99_seconds (prom-client default metrics): the p99 delay of the event loop.',
      [q(by === 'pod' ? `nodejs_eventloop_lag_p99_seconds${sel()}` : `max by (${by}) (nodejs_eventloop_lag_p99_seconds${sel()})`, `{{${by}}}`)],
      { unit: 's', w: 8 },
    ),
  ];
}

function backendDashboard(service) {
  const sel = selector([service]);
  const http = 'http_server_request_duration_seconds';
  const rpc = 'rpc_server_duration_seconds';
  const panels = [
    row('Summary'),
    stat('Pods up', 'Targets of the service answering their scrape (up).', `sum(up${sel()})`),
    stat('HTTP requests/s', `Rate of ${http}_count, all routes.`, `sum(rate(${http}_count${sel()}[${RATE}]))`, { unit: 'reqps' }),
    stat('HTTP 5xx ratio', 'Share of the HTTP responses with a 5xx status.', ratio(`${http}_count`, sel, 'http_response_status_code=~"5.."'), {
      unit: 'percentunit',
      thresholds: ERROR_RATIO_STEPS,
    }),
    stat('HTTP p99', 'p99 of the HTTP request durations, all routes.', quantile(0.99, http, sel()), { unit: 's' }),

    row('HTTP (service port)'),
    series(
      'Requests/s by route',
      `Rate of ${http}_count by http_route (route pattern; "unmatched": no route).`,
      [q(`sum by (http_route) (rate(${http}_count${sel()}[${RATE}]))`, '{{http_route}}')],
      { unit: 'reqps' },
    ),
    series(
      'Responses/s by status',
      `Rate of ${http}_count by http_response_status_code.`,
      [q(`sum by (http_response_status_code) (rate(${http}_count${sel()}[${RATE}]))`, '{{http_response_status_code}}')],
      { unit: 'reqps', stack: true },
    ),
    series(
      '5xx error ratio by route',
      'Share of the responses of each route with a 5xx status.',
      [q(ratio(`${http}_count`, sel, 'http_response_status_code=~"5.."', 'http_route'), '{{http_route}}')],
      {
        unit: 'percentunit',
        w: 24,
      },
    ),
    ...percentiles('Latency', http, sel, 'http_route', 'route'),

    row('gRPC'),
    series('Calls/s by method', `Rate of ${rpc}_count by rpc_method.`, [q(`sum by (rpc_method) (rate(${rpc}_count${sel()}[${RATE}]))`, '{{rpc_method}}')], {
      unit: 'ops',
      w: 12,
    }),
    series(
      'Errors/s by method and code',
      `Rate of ${rpc}_count with rpc_grpc_status_code other than 0 (OK).`,
      [
        q(
          `sum by (rpc_method, rpc_grpc_status_code) (rate(${rpc}_count${sel('rpc_grpc_status_code!="0"')}[${RATE}]))`,
          '{{rpc_method}} {{rpc_grpc_status_code}}',
        ),
      ],
      { unit: 'ops', w: 12 },
    ),
    ...percentiles('Call latency', rpc, sel, 'rpc_method', 'method'),

    row('Jobs and queues'),
    series(
      'Jobs finished/s by queue and outcome',
      'Rate of quire_jobs_total (outcome completed or failed; a failed attempt counts as failed).',
      [q(`sum by (queue, outcome) (rate(quire_jobs_total${sel()}[${RATE}]))`, '{{queue}} {{outcome}}')],
      { unit: 'ops', w: 8 },
    ),
    series(
      'Queue depth by state',
      'quire_queue_jobs (the same on every pod: max).',
      [q(`max by (queue, state) (quire_queue_jobs${sel()})`, '{{queue}} {{state}}')],
      { w: 8 },
    ),
    series(
      'Oldest waiting job age',
      'quire_queue_oldest_waiting_age_seconds (the same on every pod: max).',
      [q(`max by (queue) (quire_queue_oldest_waiting_age_seconds${sel()})`, '{{queue}}')],
      { unit: 's', w: 8 },
    ),

    row('Event streams'),
    series('Lag by consumer group', 'quire_event_stream_lag: entries of a stream a consumer group has not read yet (max over pods).', [
      q(`max by (stream, group) (quire_event_stream_lag${sel()})`, '{{stream}} / {{group}}'),
    ]),
    series('Pending by consumer group', 'quire_event_stream_pending: entries read by a consumer group and not acknowledged yet (max over pods).', [
      q(`max by (stream, group) (quire_event_stream_pending${sel()})`, '{{stream}} / {{group}}'),
    ]),
  ];

  if (service === 'integrations') {
    const delivery = 'quire_integration_delivery_duration_seconds';
    const script = 'quire_script_run_duration_seconds';
    const latency = (metric) => PERCENTILES.map(([p, name]) => q(quantile(p, metric, sel()), name));
    panels.push(
      row('Deliveries and scripts'),
      series(
        'Deliveries/s by outcome',
        'Rate of quire_integration_deliveries_total (success, retry, failed, skipped).',
        [q(`sum by (outcome) (rate(quire_integration_deliveries_total${sel()}[${RATE}]))`, '{{outcome}}')],
        { unit: 'ops', stack: true, w: 8 },
      ),
      series(
        'Delivery failure ratio',
        'Deliveries that failed for good among those that ended (success or failed).',
        [
          q(
            `sum(rate(quire_integration_deliveries_total${sel('outcome="failed"')}[${RATE}]))\n/\nsum(rate(quire_integration_deliveries_total${sel('outcome=~"success|failed"')}[${RATE}]))`,
            'failed',
          ),
        ],
        { unit: 'percentunit', w: 8 },
      ),
      series('Delivery latency', `p50, p95 and p99 of ${delivery}, all outcomes.`, latency(delivery), { unit: 's', w: 8 }),
      series(
        'Script runs/s by outcome',
        'Rate of quire_script_runs_total.',
        [q(`sum by (outcome) (rate(quire_script_runs_total${sel()}[${RATE}]))`, '{{outcome}}')],
        {
          unit: 'ops',
          stack: true,
        },
      ),
      series('Script run latency', `p50, p95 and p99 of ${script}, all outcomes.`, latency(script), { unit: 's' }),
    );
  }
  if (service === 'content') {
    panels.push(
      row('Search'),
      series(
        'Search indexes made/s',
        'Rate of quire_search_indexes_made_total by how (built, derived from a parent, or loaded as another pod stored it).',
        [q(`sum by (how) (rate(quire_search_indexes_made_total${sel()}[${RATE}]))`, '{{how}}')],
        { unit: 'ops', w: 24 },
      ),
    );
  }

  panels.push(
    row('Caches'),
    series(
      'Hit ratio by cache',
      'quire_cache_hits_total / (hits + misses).',
      [
        q(
          `sum by (cache) (rate(quire_cache_hits_total${sel()}[${RATE}]))\n/\n(sum by (cache) (rate(quire_cache_hits_total${sel()}[${RATE}])) + sum by (cache) (rate(quire_cache_misses_total${sel()}[${RATE}])))`,
          '{{cache}}',
        ),
      ],
      { unit: 'percentunit', max: 1, w: 8 },
    ),
    series(
      'Fill by cache (share of its budget)',
      'quire_cache_fill_bytes / quire_cache_budget_bytes, the fullest pod.',
      [q(`max by (cache) (quire_cache_fill_bytes${sel()} / quire_cache_budget_bytes${sel()})`, '{{cache}}')],
      { unit: 'percentunit', w: 8 },
    ),
    series('Entries by cache', 'quire_cache_entries, summed over the pods.', [q(`sum by (cache) (quire_cache_entries${sel()})`, '{{cache}}')], { w: 8 }),
    row('Datastore'),
    series(
      'Datastore commands by operation',
      'db_client_operation_duration_seconds: commands per second, by operation.',
      [q(`sum by (db_operation_name) (rate(db_client_operation_duration_seconds_count${sel()}[${RATE}]))`, '{{db_operation_name}}')],
      { unit: 'ops', w: 12 },
    ),
    series(
      'Datastore p99 by operation',
      'p99 of db_client_operation_duration_seconds, by operation.',
      [q(quantile(0.99, 'db_client_operation_duration_seconds', sel(), 'db_operation_name'), '{{db_operation_name}}')],
      { unit: 's', w: 12 },
    ),
    ...processPanels(sel),
  );

  return dashboard({
    uid: `quire-${service}`,
    title: `Quire / ${service}`,
    description: `The ${service} service: HTTP and gRPC traffic, jobs, queues, event streams, caches and the process (job="${service}").`,
    jobs: [service],
    withPod: true,
    panels,
  });
}

function gatewayDashboard() {
  const sel = selector(['gateway']);
  const requests = 'quire_http_requests_total';
  const duration = 'quire_http_request_duration_seconds';
  return dashboard({
    uid: 'quire-gateway',
    title: 'Quire / gateway',
    description:
      'The gateway: the public HTTP traffic by the service it was routed to ("gateway": answered by the gateway itself), and the process (job="gateway", its metrics port).',
    jobs: ['gateway'],
    withPod: true,
    panels: [
      row('Summary'),
      stat('Pods up', 'Targets of the gateway answering their scrape (up).', `sum(up${sel()})`),
      stat('Requests/s', `Rate of ${requests}.`, `sum(rate(${requests}${sel()}[${RATE}]))`, { unit: 'reqps' }),
      stat('5xx ratio', 'Share of the responses with a 5xx status.', ratio(requests, sel, 'status=~"5.."'), {
        unit: 'percentunit',
        thresholds: ERROR_RATIO_STEPS,
      }),
      stat('p99', 'p99 of the request durations.', quantile(0.99, duration, sel()), { unit: 's' }),

      row('HTTP (public port)'),
      series(
        'Requests/s by service',
        `Rate of ${requests} by service (where the request was routed).`,
        [q(`sum by (service) (rate(${requests}${sel()}[${RATE}]))`, '{{service}}')],
        {
          unit: 'reqps',
          w: 8,
        },
      ),
      series('Responses/s by status', `Rate of ${requests} by status.`, [q(`sum by (status) (rate(${requests}${sel()}[${RATE}]))`, '{{status}}')], {
        unit: 'reqps',
        stack: true,
        w: 8,
      }),
      series('Requests/s by method', `Rate of ${requests} by method.`, [q(`sum by (method) (rate(${requests}${sel()}[${RATE}]))`, '{{method}}')], {
        unit: 'reqps',
        stack: true,
        w: 8,
      }),
      series(
        '5xx error ratio by service',
        'Share of the responses with a 5xx status, by the service the request was routed to.',
        [q(ratio(requests, sel, 'status=~"5.."', 'service'), '{{service}}')],
        { unit: 'percentunit', w: 24 },
      ),
      ...percentiles('Latency', duration, sel, 'service', 'service'),
      ...processPanels(sel),
    ],
  });
}

function overviewDashboard() {
  const all = selector(SERVICES, { pod: false });
  const backends = selector(BACKENDS, { pod: false });
  const gateway = selector(['gateway'], { pod: false });
  const http = 'http_server_request_duration_seconds';
  const rpc = 'rpc_server_duration_seconds';
  return dashboard({
    uid: 'quire-overview',
    title: 'Quire / overview',
    description: 'Every Quire service of a namespace: traffic, errors, latency, work in the background and resources, by service.',
    jobs: SERVICES,
    withPod: false,
    panels: [
      row('Services'),
      series('Pods up by service', 'Targets answering their scrape (up), by job (the service).', [q(`sum by (job) (up${all()})`, '{{job}}')], { w: 8 }),
      series(
        'Gateway requests/s by service',
        'Rate of quire_http_requests_total by the service the gateway routed to.',
        [q(`sum by (service) (rate(quire_http_requests_total${gateway()}[${RATE}]))`, '{{service}}')],
        { unit: 'reqps', stack: true, w: 8 },
      ),
      series(
        'Gateway 5xx ratio by service',
        'Share of the gateway responses with a 5xx status, by the service it routed to.',
        [q(ratio('quire_http_requests_total', gateway, 'status=~"5.."', 'service'), '{{service}}')],
        { unit: 'percentunit', w: 8 },
      ),
      series('Backend requests/s', `Rate of ${http}_count by service.`, [q(`sum by (job) (rate(${http}_count${backends()}[${RATE}]))`, '{{job}}')], {
        unit: 'reqps',
        w: 8,
      }),
      series(
        'Backend 5xx ratio',
        'Share of the HTTP responses of each backend with a 5xx status.',
        [q(ratio(`${http}_count`, backends, 'http_response_status_code=~"5.."', 'job'), '{{job}}')],
        { unit: 'percentunit', w: 8 },
      ),
      series(
        'HTTP p99 by service',
        `p99 of ${http} (backends) and quire_http_request_duration_seconds (the gateway).`,
        [q(quantile(0.99, http, backends(), 'job'), '{{job}}'), q(quantile(0.99, 'quire_http_request_duration_seconds', gateway(), 'job'), '{{job}}')],
        { unit: 's', w: 8 },
      ),
      series('gRPC calls/s by service', `Rate of ${rpc}_count by service.`, [q(`sum by (job) (rate(${rpc}_count${backends()}[${RATE}]))`, '{{job}}')], {
        unit: 'ops',
        w: 8,
      }),
      series(
        'gRPC error ratio by service',
        'Share of the gRPC calls answered with a status other than OK.',
        [q(ratio(`${rpc}_count`, backends, 'rpc_grpc_status_code!="0"', 'job'), '{{job}}')],
        { unit: 'percentunit', w: 8 },
      ),
      series('gRPC p99 by service', `p99 of ${rpc}.`, [q(quantile(0.99, rpc, backends(), 'job'), '{{job}}')], { unit: 's', w: 8 }),

      row('Background work'),
      series(
        'Jobs finished/s by queue and outcome',
        'Rate of quire_jobs_total.',
        [q(`sum by (queue, outcome) (rate(quire_jobs_total${backends()}[${RATE}]))`, '{{queue}} {{outcome}}')],
        {
          unit: 'ops',
          w: 8,
        },
      ),
      series(
        'Waiting jobs by queue',
        'quire_queue_jobs{state="waiting"} (max over pods).',
        [q(`max by (queue) (quire_queue_jobs${backends('state="waiting"')})`, '{{queue}}')],
        {
          w: 8,
        },
      ),
      series(
        'Oldest waiting job age',
        'quire_queue_oldest_waiting_age_seconds (max over pods).',
        [q(`max by (queue) (quire_queue_oldest_waiting_age_seconds${backends()})`, '{{queue}}')],
        { unit: 's', w: 8 },
      ),
      series(
        'Event stream lag by consumer group',
        'quire_event_stream_lag (max over pods).',
        [q(`max by (stream, group) (quire_event_stream_lag${backends()})`, '{{stream}} / {{group}}')],
        {
          w: 8,
        },
      ),
      series(
        'Integration deliveries/s by outcome',
        'Rate of quire_integration_deliveries_total.',
        [q(`sum by (outcome) (rate(quire_integration_deliveries_total${backends()}[${RATE}]))`, '{{outcome}}')],
        { unit: 'ops', stack: true, w: 8 },
      ),
      series(
        'Script runs/s by outcome',
        'Rate of quire_script_runs_total.',
        [q(`sum by (outcome) (rate(quire_script_runs_total${backends()}[${RATE}]))`, '{{outcome}}')],
        {
          unit: 'ops',
          stack: true,
          w: 8,
        },
      ),

      row('Resources'),
      series(
        'Cache hit ratio by service and cache',
        'quire_cache_hits_total / (hits + misses).',
        [
          q(
            `sum by (job, cache) (rate(quire_cache_hits_total${backends()}[${RATE}]))\n/\n(sum by (job, cache) (rate(quire_cache_hits_total${backends()}[${RATE}])) + sum by (job, cache) (rate(quire_cache_misses_total${backends()}[${RATE}])))`,
            '{{job}} {{cache}}',
          ),
        ],
        { unit: 'percentunit', max: 1, w: 24 },
      ),
      ...processPanels(all, 'job').slice(1),
    ],
  });
}

const dir = import.meta.dirname;
const dashboards = { overview: overviewDashboard(), gateway: gatewayDashboard(), ...Object.fromEntries(BACKENDS.map((s) => [s, backendDashboard(s)])) };
const check = process.argv.includes('--check');
let stale = 0;
for (const [name, content] of Object.entries(dashboards)) {
  const file = join(dir, `${name}.json`);
  const options = { ...(await prettier.resolveConfig(file)), filepath: file };
  const text = await prettier.format(JSON.stringify(content, null, 2), options);
  if (!check) writeFileSync(file, text);
  else if (readFileSync(file, 'utf8') !== text) {
    console.error(`${file}: not what generate.mjs writes`);
    stale++;
  }
}
process.exitCode = stale ? 1 : 0;

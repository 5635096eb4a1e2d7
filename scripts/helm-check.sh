#!/usr/bin/env bash
# Lints and renders the Quire Helm chart (deploy/helm/quire) offline.
# Builds helm first if needed (scripts/install-helm.sh). Exits non-zero on any failure.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CHART="$ROOT/deploy/helm/quire"
ALL_FEATURES="$CHART/ci/all-features-values.yaml"
FERRETDB="$CHART/ci/ferretdb-values.yaml"
SERVICES=(gateway identity content publishing integrations insights)
BACKENDS=(identity content publishing integrations insights)

HELM="$("$ROOT/scripts/install-helm.sh" | tail -n 1)"

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
# Keep helm away from any user config, repositories or plugins: everything it
# needs is vendored under charts/, so nothing here touches the network.
export HELM_CONFIG_HOME="$WORK/config" HELM_CACHE_HOME="$WORK/cache" HELM_DATA_HOME="$WORK/data"
export HELM_NO_PLUGINS=1

failures=0
step() { printf '\n==> %s\n' "$*"; }
fail() { printf 'FAIL: %s\n' "$*" >&2; failures=$((failures + 1)); }

# Runs helm, hiding its notice about the vendored quire-lib symlinks (charts/<service>/charts/quire-lib).
h() {
  local rc=0
  "$HELM" "$@" 2>"$WORK/stderr" || rc=$?
  grep -v 'found symbolic link in path' "$WORK/stderr" >&2 || true
  return "$rc"
}

BASE=(--set global.mongodb.uri=mongodb://mongo:27017 --set global.redis.url=redis://redis:6379)

# Prints the document of the given kind and metadata.name from rendered manifests. Args: file kind name
doc() {
  awk -v kind="$2" -v name="$3" '
    /^---$/ { if (k && n) printf "%s", buf; buf = ""; k = n = 0; next }
    { buf = buf $0 "\n" }
    $0 == "kind: " kind { k = 1 }
    $0 == "  name: " name { n = 1 }
    END { if (k && n) printf "%s", buf }
  ' "$1"
}

step "helm version"
h version --short

step "helm lint (strict, with subcharts)"
h lint --strict --with-subcharts "$CHART" "${BASE[@]}" || fail "helm lint --strict with base values"
h lint --strict "$CHART" -f "$ALL_FEATURES" || fail "helm lint --strict with all features"
h lint --strict "$CHART" -f "$FERRETDB" || fail "helm lint --strict with the FerretDB datastore"

step "helm template (base values)"
h template quire "$CHART" "${BASE[@]}" > "$WORK/base.yaml" || fail "helm template with base values"

step "helm template (all optional features: ingress, existing secrets, LoadBalancer, ...)"
h template quire "$CHART" -f "$ALL_FEATURES" > "$WORK/all.yaml" || fail "helm template with all features"
grep -q '^kind: Ingress$' "$WORK/all.yaml" || fail "all-features render has no Ingress"

step "helm template (explicit internal secret and public URL)"
h template quire "$CHART" "${BASE[@]}" --set global.internalSecret.value=0123456789abcdef0123456789abcdef \
  --set global.publicBaseUrl=https://api.example.com > "$WORK/explicit.yaml" || fail "helm template with explicit secret"
grep -q 'PUBLIC_BASE_URL: "https://api.example.com"' "$WORK/explicit.yaml" || fail "PUBLIC_BASE_URL not set from global.publicBaseUrl"

step "files host: FILES_BASE_URL and an Ingress rule of its own, downloads only"
grep -q 'FILES_BASE_URL: "https://files.quire.test"' "$WORK/all.yaml" || fail "FILES_BASE_URL not derived from gateway.ingress.filesHost"
h template quire "$CHART" -f "$ALL_FEATURES" --show-only charts/gateway/templates/ingress.yaml > "$WORK/ingress.yaml" || fail "ingress did not render"
grep -A4 'host: "files.quire.test"' "$WORK/ingress.yaml" | grep -q 'path: /v1/public/content$' || fail "the files host is not routed to the downloads only"
if grep -q 'FILES_BASE_URL' "$WORK/base.yaml"; then fail "FILES_BASE_URL set without a files host"; fi
h template quire "$CHART" "${BASE[@]}" --set global.filesBaseUrl=https://files.example.net/ > "$WORK/files.yaml" || fail "helm template with global.filesBaseUrl"
grep -q 'FILES_BASE_URL: "https://files.example.net"' "$WORK/files.yaml" || fail "FILES_BASE_URL not set from global.filesBaseUrl"

step "helm template (only some services enabled)"
h template quire "$CHART" "${BASE[@]}" --set content.enabled=false --set insights.enabled=false > "$WORK/partial.yaml" \
  || fail "helm template with services disabled"
if grep -q 'name: quire-content$' "$WORK/partial.yaml"; then fail "content disabled but rendered"; fi

step "every service renders Deployment, Service, HPA, PDB and NetworkPolicy"
for svc in "${SERVICES[@]}"; do
  for pair in deployment:Deployment service:Service hpa:HorizontalPodAutoscaler pdb:PodDisruptionBudget networkpolicy:NetworkPolicy; do
    tpl="${pair%%:*}" kind="${pair#*:}"
    out="$WORK/$svc-$tpl.yaml"
    if h template quire "$CHART" "${BASE[@]}" --show-only "charts/$svc/templates/$tpl.yaml" > "$out"; then
      grep -q "^kind: $kind\$" "$out" && grep -q "^  name: quire-$svc\$" "$out" \
        || fail "$svc: $tpl.yaml does not render a $kind named quire-$svc"
    else
      fail "$svc: $tpl.yaml did not render"
    fi
  done
  printf '  %-13s ok\n' "$svc"
done

step "NetworkPolicy rules"
# Backends: HTTP (8080) only in the rule whose source is the gateway; gRPC (50051)
# from the gateway and from any quire pod. Gateway: 8080 from anywhere.
for svc in "${BACKENDS[@]}"; do
  np="$WORK/$svc-networkpolicy.yaml"
  [[ "$(grep -c 'port: 8080$' "$np")" == 1 ]] || fail "$svc: HTTP port must be opened exactly once (to the gateway)"
  [[ "$(grep -c 'port: 50051$' "$np")" == 2 ]] || fail "$svc: gRPC port must be opened to the gateway and to quire pods"
  grep -q 'app.kubernetes.io/name: gateway$' "$np" || fail "$svc: no gateway podSelector"
  grep -q 'app.kubernetes.io/part-of: quire$' "$np" || fail "$svc: no part-of=quire podSelector"
done
gw="$WORK/gateway-networkpolicy.yaml"
if grep -q 'from:' "$gw"; then fail "gateway NetworkPolicy must accept ingress from anywhere"; fi
grep -q 'port: 8080$' "$gw" || fail "gateway NetworkPolicy does not open 8080"

step "gRPC balancing: a headless <service>-grpc Service per backend, dns:/// addresses (all features)"
all="$WORK/all.yaml"
for svc in "${BACKENDS[@]}"; do
  grpc_svc="$(doc "$all" Service "quire-$svc-grpc")"
  if [[ -z "$grpc_svc" ]]; then fail "$svc: no Service quire-$svc-grpc"; continue; fi
  grep -q '^  clusterIP: None$' <<<"$grpc_svc" || fail "$svc: quire-$svc-grpc is not headless (clusterIP: None)"
  [[ "$(grep -c '^    - name: ' <<<"$grpc_svc")" == 1 ]] && grep -q '^    - name: grpc$' <<<"$grpc_svc" \
    || fail "$svc: quire-$svc-grpc must expose the gRPC port only"
  grep -q "app.kubernetes.io/name: $svc\$" <<<"$grpc_svc" || fail "$svc: quire-$svc-grpc does not select the $svc pods"
  prefix="$(tr '[:lower:]' '[:upper:]' <<<"$svc")"
  grep -q "^  ${prefix}_GRPC_ADDR: \"dns:///quire-$svc-grpc\.default\.svc\.cluster\.local:50051\"\$" "$all" \
    || fail "$svc: ${prefix}_GRPC_ADDR is not dns:///quire-$svc-grpc.<namespace>.svc.cluster.local:50051"
  doc "$all" Deployment "quire-$svc" | grep -A1 'name: GRPC_MAX_CONNECTION_AGE_MS$' | grep -q 'value: "120000"$' \
    || fail "$svc: GRPC_MAX_CONNECTION_AGE_MS not set from global.grpc.maxConnectionAgeMs"
  printf '  %-13s ok\n' "$svc"
done
[[ "$(grep -c '_GRPC_ADDR: ' "$all")" == "${#BACKENDS[@]}" ]] || fail "expected one _GRPC_ADDR per backend"
if grep '_GRPC_ADDR: ' "$all" | grep -qv '_GRPC_ADDR: "dns:///'; then fail "a _GRPC_ADDR does not start with dns:///"; fi
if doc "$all" Deployment quire-gateway | grep -q GRPC_MAX_CONNECTION_AGE_MS; then fail "gateway: GRPC_MAX_CONNECTION_AGE_MS is for gRPC servers (the backends)"; fi
grep -q '^  IDENTITY_GRPC_ADDR: "dns:///quire-identity-grpc.docs.svc.cluster.local:50051"$' \
  <(h template quire "$CHART" "${BASE[@]}" --namespace docs --show-only templates/configmap.yaml) \
  || fail "_GRPC_ADDR does not use the release namespace"

step "tracing: OTEL_* on every Deployment when global.otel.endpoint is set, none without it"
for svc in gateway "${BACKENDS[@]}"; do
  deployment="$(doc "$all" Deployment "quire-$svc")"
  otel() { grep -A1 "name: $1\$" <<<"$deployment" | grep -q "value: \"$2\"\$" || fail "$svc: $1 is not $2"; }
  otel OTEL_SERVICE_NAME "$svc"
  otel OTEL_EXPORTER_OTLP_ENDPOINT 'http://otel-collector.observability:4318'
  otel OTEL_EXPORTER_OTLP_PROTOCOL 'http/json'
  otel OTEL_TRACES_SAMPLER 'parentbased_traceidratio'
  otel OTEL_TRACES_SAMPLER_ARG '0.25'
  otel OTEL_RESOURCE_ATTRIBUTES 'service.namespace=quire,k8s.namespace.name=default,k8s.pod.name=$(K8S_POD_NAME),deployment.environment.name=ci'
  printf '  %-13s ok\n' "$svc"
done
if grep -q 'OTEL_' "$WORK/base.yaml"; then fail "OTEL_* set without global.otel.endpoint"; fi
if h template quire "$CHART" "${BASE[@]}" --set global.otel.endpoint=http://c:4318 --set global.otel.protocol=grpc >/dev/null 2>&1; then
  fail "global.otel.protocol grpc accepted (the services export over HTTP only)"
fi

step "graceful shutdown: preStop sleep, SHUTDOWN_DRAIN_MS and terminationGracePeriodSeconds on every Deployment"
[[ "$(grep -c '^kind: Deployment$' "$all")" == "$(grep -c '^            preStop:$' "$all")" ]] || fail "a Deployment has no preStop"
[[ "$(grep -c '^kind: Deployment$' "$all")" == "$(grep -c '^      terminationGracePeriodSeconds: ' "$all")" ]] \
  || fail "a Deployment has no terminationGracePeriodSeconds"
for svc in "${SERVICES[@]}"; do
  dep="$(doc "$all" Deployment "quire-$svc")"
  grep -q 'command: \["/bin/sh", "-c", "sleep 10"\]$' <<<"$dep" || fail "$svc: preStop does not sleep global.shutdown.preStopSeconds"
  grace=45; [[ "$svc" == content ]] && grace=90
  grep -q "^      terminationGracePeriodSeconds: $grace\$" <<<"$dep" || fail "$svc: terminationGracePeriodSeconds is not $grace"
  grep -A1 'name: SHUTDOWN_DRAIN_MS$' <<<"$dep" | grep -q 'value: "5000"$' || fail "$svc: SHUTDOWN_DRAIN_MS not set from global.shutdown.drainMs"
  printf '  %-13s ok\n' "$svc"
done
base_dep="$(doc "$WORK/base.yaml" Deployment quire-identity)"
grep -q 'sleep 5"\]$' <<<"$base_dep" && grep -q '^      terminationGracePeriodSeconds: 40$' <<<"$base_dep" \
  && grep -A1 'name: SHUTDOWN_DRAIN_MS$' <<<"$base_dep" | grep -q 'value: "2000"$' \
  && grep -A1 'name: GRPC_MAX_CONNECTION_AGE_MS$' <<<"$base_dep" | grep -q 'value: "30000"$' \
  || fail "defaults: preStop 5 s, grace 40 s, SHUTDOWN_DRAIN_MS 2000, GRPC_MAX_CONNECTION_AGE_MS 30000 expected"

step "PodDisruptionBudgets allow a drain; pods spread over nodes"
for svc in "${SERVICES[@]}"; do
  pdb="$(doc "$WORK/base.yaml" PodDisruptionBudget "quire-$svc")"
  grep -q '^  maxUnavailable: 1$' <<<"$pdb" || fail "$svc: PDB is not maxUnavailable 1"
  dep="$(doc "$WORK/base.yaml" Deployment "quire-$svc")"
  grep -A5 'topologyKey: kubernetes.io/hostname$' <<<"$dep" | grep -q "app.kubernetes.io/name: $svc\$" \
    || fail "$svc: no kubernetes.io/hostname spread over its own pods"
  grep -q 'whenUnsatisfiable: ScheduleAnyway$' <<<"$dep" || fail "$svc: spread is not ScheduleAnyway"
done
doc "$all" PodDisruptionBudget quire-publishing | grep -q '^  minAvailable: 2$' || fail "publishing: minAvailable not honoured"
[[ -z "$(doc "$all" PodDisruptionBudget quire-insights)" ]] || fail "insights: a PDB with a single replica"
doc "$all" Deployment quire-content | grep -A5 'topologyKey: topology.kubernetes.io/zone$' | grep -q 'app.kubernetes.io/name: content$' \
  || fail "content: no zone spread with topologySpread.zone.enabled"
pub="$(doc "$all" Deployment quire-publishing)"
grep -q 'whenUnsatisfiable: DoNotSchedule$' <<<"$pub" && ! grep -q 'topologyKey: kubernetes.io/hostname$' <<<"$pub" \
  || fail "publishing: topologySpreadConstraints not used verbatim"

step "FerretDB datastore: a Deployment of 2, its Service, and the backends pointed at it"
fdb="$WORK/ferretdb.yaml"
h template quire "$CHART" -f "$FERRETDB" > "$fdb" || fail "helm template with the FerretDB datastore"
dep="$(doc "$fdb" Deployment quire-ferretdb)"
grep -q '^  replicas: 2$' <<<"$dep" || fail "FerretDB Deployment does not have 2 replicas"
for arg in --handler=postgresql --telemetry=disable --listen-addr=:27017; do
  grep -q -- "- $arg\$" <<<"$dep" || fail "FerretDB: $arg missing"
done
grep -q 'image: "ghcr.io/ferretdb/ferretdb:1.24.2"$' <<<"$dep" || fail "FerretDB: default image not used"
grep -A4 'name: FERRETDB_POSTGRESQL_URL$' <<<"$dep" | grep -q 'name: quire-postgres$' || fail "FerretDB: PostgreSQL URL not read from the existing Secret"
grep -A5 'topologyKey: kubernetes.io/hostname$' <<<"$dep" | grep -q 'app.kubernetes.io/name: ferretdb$' || fail "FerretDB: no hostname spread"
grep -q 'seconds: 5$' <<<"$dep" || fail "FerretDB: preStop sleep not set"
doc "$fdb" Service quire-ferretdb | grep -q 'port: 27017$' || fail "FerretDB: no Service on 27017"
doc "$fdb" PodDisruptionBudget quire-ferretdb | grep -q '^  maxUnavailable: 1$' || fail "FerretDB: no PDB with maxUnavailable 1"
doc "$fdb" NetworkPolicy quire-ferretdb | grep -q 'app.kubernetes.io/component: backend$' || fail "FerretDB: NetworkPolicy does not admit the backends"
[[ -z "$(doc "$fdb" Secret quire-ferretdb)" ]] || fail "FerretDB: a Secret rendered although existingSecret is set"
for svc in "${BACKENDS[@]}"; do
  be="$(doc "$fdb" Deployment "quire-$svc")"
  grep -A1 'name: MONGODB_URI$' <<<"$be" | grep -q 'value: "mongodb://quire-ferretdb.default.svc.cluster.local:27017"$' \
    || fail "$svc: MONGODB_URI does not point to the FerretDB Service"
  grep -A4 'name: QUIRE_FERRETDB_POSTGRES_URL$' <<<"$be" | grep -q 'name: quire-postgres$' || fail "$svc: QUIRE_FERRETDB_POSTGRES_URL not set"
done
if doc "$fdb" Deployment quire-gateway | grep -q 'MONGODB_URI\|QUIRE_FERRETDB_POSTGRES_URL'; then fail "gateway: datastore settings given to the gateway"; fi
if grep -q 'quire-ferretdb' "$WORK/base.yaml"; then fail "FerretDB rendered with an external MongoDB"; fi
FERRETDB_URL=(--set global.redis.url=redis://redis:6379 --set global.ferretdb.enabled=true
  --set global.ferretdb.postgresql.url=postgres://quire:secret@postgres:5432/ferretdb)
h template quire "$CHART" "${FERRETDB_URL[@]}" > "$WORK/ferretdb-url.yaml" || fail "helm template with FerretDB and a PostgreSQL URL"
doc "$WORK/ferretdb-url.yaml" Secret quire-ferretdb | grep -q '^  url: ' || fail "FerretDB: postgresql.url not stored in the Secret quire-ferretdb"
doc "$WORK/ferretdb-url.yaml" Deployment quire-identity | grep -A4 'name: QUIRE_FERRETDB_POSTGRES_URL$' | grep -q 'name: quire-ferretdb$' \
  || fail "identity: QUIRE_FERRETDB_POSTGRES_URL not read from the Secret quire-ferretdb"

step "monitoring: a ServiceMonitor per service, Grafana dashboards, the PrometheusRule (all features); none with base values"
# The dashboards' JSON is what their generator writes (it formats with the repository's prettier: after npm ci).
if [[ -d "$ROOT/node_modules/prettier" ]]; then
  (cd "$ROOT" && node deploy/helm/quire/dashboards/generate.mjs --check) || fail "dashboards/*.json differ from what dashboards/generate.mjs writes"
fi
for svc in "${SERVICES[@]}"; do
  sm="$(doc "$all" ServiceMonitor "quire-$svc")"
  if [[ -z "$sm" ]]; then fail "$svc: no ServiceMonitor quire-$svc"; continue; fi
  port=http; [[ "$svc" == gateway ]] && port=metrics
  grep -q "^    - port: $port\$" <<<"$sm" && grep -q '^      path: /metrics$' <<<"$sm" \
    || fail "$svc: the ServiceMonitor does not scrape /metrics on the port $port"
  grep -q '^  jobLabel: app.kubernetes.io/name$' <<<"$sm" || fail "$svc: the ServiceMonitor's job is not the service's name"
  grep -A3 '^    matchLabels:$' <<<"$sm" | grep -q "app.kubernetes.io/name: $svc\$" || fail "$svc: the ServiceMonitor does not select the $svc Services"
  grep -q '^    release: "kube-prometheus-stack"$' <<<"$sm" || fail "$svc: global.metrics.serviceMonitor.labels not on the ServiceMonitor"
  grep -q '^      interval: 15s$' <<<"$sm" && grep -q '^      scrapeTimeout: 5s$' <<<"$sm" || fail "$svc: interval / scrapeTimeout not from the values"
  grep -q '^      metricRelabelings:$' <<<"$sm" || fail "$svc: metricRelabelings not used"
  # The named port exists on the Service the ServiceMonitor selects, and on the pods.
  if [[ "$svc" == gateway ]]; then
    ms="$(doc "$all" Service quire-gateway-metrics)"
    grep -q '^    - name: metrics$' <<<"$ms" && grep -q '^      port: 9100$' <<<"$ms" && grep -q '^      targetPort: metrics$' <<<"$ms" \
      && grep -q '^    app.kubernetes.io/component: metrics$' <<<"$ms" && grep -q '^  clusterIP: None$' <<<"$ms" \
      || fail "gateway: no headless Service quire-gateway-metrics with the port metrics (9100)"
    grep -q '^      app.kubernetes.io/component: metrics$' <<<"$sm" || fail "gateway: the ServiceMonitor may select the public Service"
    grep -q '^      honorLabels: true$' <<<"$sm" || fail "gateway: the ServiceMonitor does not keep the metrics' service label"
    if doc "$all" Service quire-gateway | grep -q 'name: metrics$'; then fail "gateway: the metrics port is on the public Service"; fi
    doc "$all" Deployment quire-gateway | grep -A1 -- '- name: metrics$' | grep -q 'containerPort: 9100$' || fail "gateway: no container port metrics"
  else
    doc "$all" Service "quire-$svc" | grep -A1 '^    - name: http$' | grep -q 'port: 8080$' || fail "$svc: no Service port http"
    dep="$(doc "$WORK/base.yaml" Deployment "quire-$svc")"
    grep -q 'prometheus.io/port: "8080"$' <<<"$dep" && grep -q 'prometheus.io/path: /metrics$' <<<"$dep" \
      && grep -q 'prometheus.io/scrape: "true"$' <<<"$dep" || fail "$svc: pods not annotated prometheus.io for /metrics on 8080"
  fi
  printf '  %-13s ServiceMonitor ok\n' "$svc"
done
[[ "$(grep -c '^kind: ServiceMonitor$' "$all")" == "${#SERVICES[@]}" ]] || fail "expected one ServiceMonitor per service"

command -v node >/dev/null || fail "node is needed to parse the dashboards' JSON"
# Prints the JSON of a dashboard ConfigMap's data key. Args: file name
dashboard_json() {
  doc "$1" ConfigMap "quire-dashboard-$2" | awk -v key="  quire-$2.json: |-" '
    $0 == key { f = 1; next }
    f && /^    / { print substr($0, 5); next }
    f { exit }'
}
for name in overview "${SERVICES[@]}"; do
  cm="$(doc "$all" ConfigMap "quire-dashboard-$name")"
  if [[ -z "$cm" ]]; then fail "dashboard $name: no ConfigMap quire-dashboard-$name"; continue; fi
  grep -q '^  namespace: monitoring$' <<<"$cm" || fail "dashboard $name: not in global.metrics.dashboards.namespace"
  grep -q '^    grafana_dashboard: "quire"$' <<<"$cm" || fail "dashboard $name: no label grafana_dashboard=quire"
  grep -q '^    grafana_folder: Quire$' <<<"$cm" || fail "dashboard $name: annotations not used"
  vars=datasource,namespace; [[ "$name" != overview ]] && vars=datasource,namespace,pod
  dashboard_json "$all" "$name" | node -e '
    const [uid, vars] = process.argv.slice(1);
    const d = JSON.parse(require("fs").readFileSync(0, "utf8"));
    const names = d.templating.list.map((v) => v.name).join(",");
    if (d.uid !== uid) throw new Error(`uid ${d.uid}, not ${uid}`);
    if (names !== vars) throw new Error(`variables ${names}, not ${vars}`);
    const exprs = d.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    if (exprs.length < 10 || exprs.some((e) => !e.includes("namespace=\"$namespace\""))) throw new Error("a query does not select the namespace");
  ' "quire-$name" "$vars" || fail "dashboard $name: its JSON does not parse or is not the expected dashboard"
  printf '  %-13s dashboard ok\n' "$name"
done
[[ "$(grep -c '^    grafana_dashboard: "quire"$' "$all")" == "$(( ${#SERVICES[@]} + 1 ))" ]] || fail "expected one dashboard per service plus the overview"
[[ "$(dashboard_json "$all" integrations)" == *quire_integration_deliveries_total* ]] || fail "dashboard integrations: no delivery panels"
h template quire "$CHART" -f "$ALL_FEATURES" --set content.enabled=false --show-only templates/dashboards.yaml > "$WORK/dashboards.yaml" \
  || fail "dashboards with content disabled did not render"
if grep -q 'quire-dashboard-content$' "$WORK/dashboards.yaml"; then fail "dashboard content rendered with content disabled"; fi

rules="$(doc "$all" PrometheusRule quire-alerts)"
[[ -n "$rules" ]] || fail "no PrometheusRule quire-alerts"
for alert in QuireHighErrorRatio QuireGatewayHighErrorRatio QuireSlowRequests QuireGatewaySlowRequests QuireQueueJobWaiting \
  QuireDeliveryFailures QuireEventStreamLag QuireReplicasUnavailable QuireProcessRestarts; do
  grep -q "^        - alert: $alert\$" <<<"$rules" || fail "PrometheusRule: no alert $alert"
done
n="$(grep -c '^        - alert: ' <<<"$rules")"
for key in 'severity: "' 'team: "docs"' 'summary: "' 'description: "'; do
  [[ "$(grep -c "^            $key" <<<"$rules")" == "$n" ]] || fail "PrometheusRule: not every alert has $key"
done
grep -q '^    release: "kube-prometheus-stack"$' <<<"$rules" || fail "PrometheusRule: global.metrics.alerts.labels not used"
grep -A8 'alert: QuireHighErrorRatio$' <<<"$rules" | grep -q '^            ) > 0.02$' || fail "QuireHighErrorRatio: threshold not from the values"
grep -A8 'alert: QuireHighErrorRatio$' <<<"$rules" | grep -q 'job=~"identity|content|publishing|integrations|insights", http_response_status_code=~"5.."}\[5m\]' \
  || fail "QuireHighErrorRatio: not over the backends' 5xx over 5 minutes"
grep -A3 'alert: QuireReplicasUnavailable$' <<<"$rules" | grep -q 'kube_deployment_status_replicas_unavailable{namespace="default", deployment=~"(quire-gateway|quire-identity|quire-content|quire-publishing|quire-integrations|quire-insights)"}) > 0$' \
  || fail "QuireReplicasUnavailable: not over the chart's Deployments"
grep -A4 'alert: QuireReplicasUnavailable$' <<<"$rules" | grep -q '^          for: 10m$' || fail "QuireReplicasUnavailable: not for 10m"
grep -A4 'alert: QuireProcessRestarts$' <<<"$rules" | grep -q '^          for: 5m$' || fail "QuireProcessRestarts: for not from the values"
h template quire "$CHART" -f "$FERRETDB" --set global.metrics.alerts.enabled=true --set integrations.enabled=false \
  --show-only templates/prometheusrule.yaml > "$WORK/rules-ferretdb.yaml" || fail "PrometheusRule with FerretDB did not render"
grep -q 'deployment=~"(quire-gateway|quire-identity|quire-content|quire-publishing|quire-insights|quire-ferretdb)"' "$WORK/rules-ferretdb.yaml" \
  || fail "QuireReplicasUnavailable: FerretDB's Deployment missing, or a disabled service present"
if grep -q 'QuireDeliveryFailures' "$WORK/rules-ferretdb.yaml"; then fail "QuireDeliveryFailures rendered without integrations"; fi
printf '  PrometheusRule quire-alerts: %s alerts\n' "$n"

for kind in ServiceMonitor PrometheusRule; do
  if grep -q "^kind: $kind\$" "$WORK/base.yaml"; then fail "a $kind rendered with base values"; fi
done
if grep -q 'quire-gateway-metrics$\|quire-dashboard-\|grafana_dashboard' "$WORK/base.yaml"; then fail "dashboards or the metrics Service rendered with base values"; fi
h template quire "$CHART" "${BASE[@]}" --set global.metrics.alerts.enabled=true --set global.metrics.dashboards.enabled=true \
  --set global.metrics.serviceMonitor.enabled=true > "$WORK/monitoring.yaml" || fail "helm template with monitoring on"
[[ "$(grep 'checksum/global:' "$WORK/base.yaml")" == "$(grep 'checksum/global:' "$WORK/monitoring.yaml")" ]] \
  || fail "turning monitoring on rolls the pods (checksum/global changed)"

step "required values are enforced"
expect_rejected() {
  local what="$1"; shift
  if h template quire "$CHART" "$@" > /dev/null 2>&1; then fail "render should fail: $what"; else echo "  rejected: $what"; fi
}
expect_rejected "no MongoDB/Redis settings"
expect_rejected "no Redis settings" --set global.mongodb.uri=mongodb://mongo:27017
expect_rejected "malformed Redis URL" "${BASE[@]}" --set global.redis.url=redis.example:6379
expect_rejected "internal secret shorter than 32 characters" "${BASE[@]}" --set global.internalSecret.value=short
expect_rejected "unknown log level" "${BASE[@]}" --set global.logLevel=verbose
expect_rejected "malformed files URL" "${BASE[@]}" --set global.filesBaseUrl=files.example.com
expect_rejected "files URL on the API's host" "${BASE[@]}" --set global.publicBaseUrl=https://api.example.com --set global.filesBaseUrl=https://API.example.com:8443
expect_rejected "Ingress without a files host" "${BASE[@]}" --set gateway.ingress.enabled=true --set gateway.ingress.filesHost=
expect_rejected "files host among the Ingress hosts" "${BASE[@]}" --set gateway.ingress.enabled=true --set gateway.ingress.filesHost=api.example.com
expect_rejected "unknown translation provider" "${BASE[@]}" --set insights.providers.translation.type=deepl
expect_rejected "translation provider without its URL" "${BASE[@]}" --set insights.providers.translation.type=openai
expect_rejected "both datastores (external MongoDB and FerretDB)" "${FERRETDB_URL[@]}" --set global.mongodb.uri=mongodb://mongo:27017
expect_rejected "neither datastore" --set global.redis.url=redis://redis:6379
expect_rejected "FerretDB without a PostgreSQL URL" --set global.redis.url=redis://redis:6379 --set global.ferretdb.enabled=true
expect_rejected "malformed PostgreSQL URL" "${FERRETDB_URL[@]}" --set global.ferretdb.postgresql.url=pg.example:5432
expect_rejected "FerretDB settings outside global" "${FERRETDB_URL[@]}" --set ferretdb.enabled=true
expect_rejected "termination grace period too short (not above preStop + drain + 25 s)" "${BASE[@]}" --set global.shutdown.terminationGracePeriodSeconds=32
expect_rejected "a service's termination grace period too short" "${BASE[@]}" --set content.terminationGracePeriodSeconds=30
expect_rejected "drain longer than 60 s" "${BASE[@]}" --set global.shutdown.drainMs=60001 --set global.shutdown.terminationGracePeriodSeconds=120
expect_rejected "gRPC max connection age under 1 s" "${BASE[@]}" --set global.grpc.maxConnectionAgeMs=500
expect_rejected "PDB minAvailable not below the replicas always running" "${BASE[@]}" --set publishing.podDisruptionBudget.minAvailable=2
expect_rejected "PDB maxUnavailable 0" "${BASE[@]}" --set identity.podDisruptionBudget.maxUnavailable=0
expect_rejected "alert threshold not a number" "${BASE[@]}" --set global.metrics.alerts.enabled=true --set global.metrics.alerts.errorRatio.threshold=high
expect_rejected "alert for not a duration" "${BASE[@]}" --set global.metrics.alerts.enabled=true --set global.metrics.alerts.latencyP99.for=10

step "insights providers: settings as env, API keys from Secrets"
ins="$WORK/all-insights.yaml"
h template quire "$CHART" -f "$ALL_FEATURES" --show-only charts/insights/templates/deployment.yaml > "$ins" || fail "insights deployment did not render"
for name in TRANSLATION_PROVIDER TRANSLATION_PROVIDER_URL TRANSLATION_PROVIDER_API_KEY INSIGHTS_LLM_URL INSIGHTS_LLM_API_KEY; do
  grep -q "name: $name\$" "$ins" || fail "insights: $name not set"
done
grep -q 'name: quire-translate$' "$ins" || fail "insights: translation API key not read from its Secret"

if (( failures > 0 )); then
  printf '\nhelm-check: %d failure(s)\n' "$failures" >&2
  exit 1
fi
printf '\nhelm-check: all checks passed\n'

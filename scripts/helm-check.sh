#!/usr/bin/env bash
# Lints and renders the Quire Helm chart (deploy/helm/quire) offline.
# Builds helm first if needed (scripts/install-helm.sh). Exits non-zero on any failure.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CHART="$ROOT/deploy/helm/quire"
ALL_FEATURES="$CHART/ci/all-features-values.yaml"
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

step "helm version"
h version --short

step "helm lint (strict, with subcharts)"
h lint --strict --with-subcharts "$CHART" "${BASE[@]}" || fail "helm lint --strict with base values"
h lint --strict "$CHART" -f "$ALL_FEATURES" || fail "helm lint --strict with all features"

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

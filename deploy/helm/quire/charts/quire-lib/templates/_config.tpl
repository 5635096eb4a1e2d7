{{/*
Shared configuration: the ConfigMap and Secret rendered once by the umbrella
chart, and the env / envFrom blocks every service container uses.
*/}}

{{/* Upper-case env prefix of a service name: "identity" -> "IDENTITY". */}}
{{- define "quire-lib.envPrefix" -}}
{{- . | upper | replace "-" "_" -}}
{{- end -}}

{{/* Name/key of the Secret holding INTERNAL_HMAC_SECRET. Arg: root context. Output: YAML {name, key}. */}}
{{- define "quire-lib.internalSecretRef" -}}
{{- $s := dig "internalSecret" dict (.Values.global | default dict) -}}
{{- if $s.existingSecret -}}
name: {{ $s.existingSecret }}
key: {{ $s.existingSecretKey | default "INTERNAL_HMAC_SECRET" }}
{{- else -}}
name: {{ include "quire-lib.sharedName" . }}
key: INTERNAL_HMAC_SECRET
{{- end -}}
{{- end -}}

{{/* Name of the Secret Quire makes for INTEGRATIONS_SECRETS_KEY (when no existing Secret is named). */}}
{{- define "quire-lib.integrationsSecretName" -}}
{{- printf "%s-integrations-secrets-key" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Name/key of the Secret holding INTEGRATIONS_SECRETS_KEY. Arg: root context. Output: YAML {name, key}. */}}
{{- define "quire-lib.integrationsSecretRef" -}}
{{- $s := dig "integrationsSecretsKey" dict (.Values.global | default dict) -}}
{{- if $s.existingSecret -}}
name: {{ $s.existingSecret }}
key: {{ $s.existingSecretKey | default "INTEGRATIONS_SECRETS_KEY" }}
{{- else -}}
name: {{ include "quire-lib.integrationsSecretName" . }}
key: INTEGRATIONS_SECRETS_KEY
{{- end -}}
{{- end -}}

{{- define "quire-lib.mongodbSecretRef" -}}
{{- $s := dig "mongodb" dict (.Values.global | default dict) -}}
{{- if $s.existingSecret -}}
name: {{ $s.existingSecret }}
key: {{ $s.existingSecretKey | default "MONGODB_URI" }}
{{- else -}}
name: {{ include "quire-lib.sharedName" . }}
key: MONGODB_URI
{{- end -}}
{{- end -}}

{{- define "quire-lib.redisSecretRef" -}}
{{- $s := dig "redis" dict (.Values.global | default dict) -}}
{{- if $s.existingSecret -}}
name: {{ $s.existingSecret }}
key: {{ $s.existingSecretKey | default "REDIS_URL" }}
{{- else -}}
name: {{ include "quire-lib.sharedName" . }}
key: REDIS_URL
{{- end -}}
{{- end -}}

{{/* env entry reading a secret key. Arg: list envName refYaml optional */}}
{{- define "quire-lib.secretEnv" -}}
{{- $ref := index . 1 | fromYaml -}}
- name: {{ index . 0 }}
  valueFrom:
    secretKeyRef:
      name: {{ $ref.name }}
      key: {{ $ref.key }}
      {{- if index . 2 }}
      optional: true
      {{- end }}
{{- end -}}

{{/* Fail early when required global values are missing. Arg: root context. */}}
{{- define "quire-lib.validate" -}}
{{- $g := .Values.global | default dict -}}
{{- $mongo := $g.mongodb | default dict -}}
{{- $redis := $g.redis | default dict -}}
{{- $ferretdb := $g.ferretdb | default dict -}}
{{- if hasKey .Values "ferretdb" -}}
{{- fail "FerretDB is configured under global.ferretdb (enabled, image, postgresql.url or postgresql.existingSecret, ...), not ferretdb: the service subcharts read it too" -}}
{{- end -}}
{{- /* The datastore: an external MongoDB (global.mongodb.*) or FerretDB deployed by the chart (global.ferretdb.enabled), exactly one */ -}}
{{- $externalMongo := or $mongo.uri $mongo.existingSecret $mongo.serviceUris -}}
{{- if and $externalMongo $ferretdb.enabled -}}
{{- fail "choose one datastore: global.mongodb.uri (or global.mongodb.existingSecret / serviceUris) for an external MongoDB, or global.ferretdb.enabled for FerretDB, not both" -}}
{{- end -}}
{{- if not (or $externalMongo $ferretdb.enabled) -}}
{{- fail "a datastore is required: global.mongodb.uri (base URI, e.g. mongodb://mongo:27017, or global.mongodb.existingSecret, or global.mongodb.serviceUris) for an external MongoDB, or global.ferretdb.enabled=true with global.ferretdb.postgresql.url (or .existingSecret) for FerretDB" -}}
{{- end -}}
{{- if $ferretdb.enabled -}}
{{- include "quire-lib.ferretdbValidate" . -}}
{{- end -}}
{{- if $mongo.serviceUris -}}
{{- $backends := splitList " " (include "quire-lib.backends" .) -}}
{{- range $svc, $_ := $mongo.serviceUris -}}
{{- if not (has $svc $backends) -}}
{{- fail (printf "global.mongodb.serviceUris: unknown service %q (expected one of: %s)" $svc (join ", " $backends)) -}}
{{- end -}}
{{- end -}}
{{- if not (or $mongo.uri $mongo.existingSecret) -}}
{{- range $svc := $backends -}}
{{- if and (dig $svc "enabled" true $.Values.AsMap) (not (index $mongo.serviceUris $svc)) -}}
{{- fail (printf "global.mongodb.serviceUris.%s is required when neither global.mongodb.uri nor global.mongodb.existingSecret is set" $svc) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if not (or $redis.url $redis.existingSecret) -}}
{{- fail "global.redis.url is required (e.g. redis://redis:6379), or global.redis.existingSecret" -}}
{{- end -}}
{{- if and $mongo.uri (not (regexMatch "^mongodb(\\+srv)?://" $mongo.uri)) -}}
{{- fail "global.mongodb.uri must start with mongodb:// or mongodb+srv://" -}}
{{- end -}}
{{- range $svc, $uri := ($mongo.serviceUris | default dict) -}}
{{- if and $uri (not (regexMatch "^mongodb(\\+srv)?://" $uri)) -}}
{{- fail (printf "global.mongodb.serviceUris.%s must start with mongodb:// or mongodb+srv://" $svc) -}}
{{- end -}}
{{- end -}}
{{- if and $mongo.dbPrefix (not (regexMatch "^[a-z0-9_]*$" $mongo.dbPrefix)) -}}
{{- fail "global.mongodb.dbPrefix may only contain a-z, 0-9 and _" -}}
{{- end -}}
{{- if and $redis.url (not (regexMatch "^rediss?://" $redis.url)) -}}
{{- fail "global.redis.url must start with redis:// or rediss://" -}}
{{- end -}}
{{- $internal := $g.internalSecret | default dict -}}
{{- if and $internal.value (lt (len $internal.value) 32) -}}
{{- fail "global.internalSecret.value must be at least 32 characters" -}}
{{- end -}}
{{- $integrationsKey := $g.integrationsSecretsKey | default dict -}}
{{- if and $integrationsKey.value (lt (len $integrationsKey.value) 32) -}}
{{- fail "global.integrationsSecretsKey.value must be at least 32 characters" -}}
{{- end -}}
{{- $levels := list "fatal" "error" "warn" "info" "debug" "trace" "silent" -}}
{{- if not (has ($g.logLevel | default "info") $levels) -}}
{{- fail (printf "global.logLevel must be one of: %s" (join ", " $levels)) -}}
{{- end -}}
{{- range $svc := splitList " " (include "quire-lib.services" .) -}}
{{- $level := dig $svc "logLevel" "" $.Values.AsMap -}}
{{- if and $level (not (has $level $levels)) -}}
{{- fail (printf "%s.logLevel must be one of: %s" $svc (join ", " $levels)) -}}
{{- end -}}
{{- end -}}
{{- if and $g.publicBaseUrl (not (regexMatch "^https?://[^/]" $g.publicBaseUrl)) -}}
{{- fail "global.publicBaseUrl must be an absolute http(s) URL, e.g. https://api.example.com" -}}
{{- end -}}
{{- if and $g.filesBaseUrl (not (regexMatch "^https?://[^/]" $g.filesBaseUrl)) -}}
{{- fail "global.filesBaseUrl must be an absolute http(s) URL, e.g. https://files.example.com" -}}
{{- end -}}
{{- $ing := ((.Values.gateway | default dict).ingress | default dict) -}}
{{- if and $ing.enabled (not (or $ing.filesHost $g.filesBaseUrl)) -}}
{{- fail "gateway.ingress.filesHost is required with the Ingress (or global.filesBaseUrl): uploaded files are served from a host of their own" -}}
{{- end -}}
{{- if and $ing.enabled $ing.filesHost -}}
{{- range ($ing.hosts | default list) -}}
{{- if eq (lower (toString .host)) (lower $ing.filesHost) -}}
{{- fail (printf "gateway.ingress.filesHost %q must not be one of gateway.ingress.hosts: no page or API is served on the files host" $ing.filesHost) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $files := include "quire-lib.filesBaseUrl" . -}}
{{- if and $files (eq (include "quire-lib.urlHost" $files) (include "quire-lib.urlHost" (include "quire-lib.publicBaseUrl" .))) -}}
{{- fail "the files host (global.filesBaseUrl or gateway.ingress.filesHost) must not be the API's host (global.publicBaseUrl)" -}}
{{- end -}}
{{- /* Checked here for the global values; each Deployment checks its own (a service may override the grace period) */ -}}
{{- $_ := include "quire-lib.grpcMaxConnectionAgeMs" . -}}
{{- $_ := include "quire-lib.shutdown" (list . dict) -}}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]*[a-z0-9])?$" .Release.Name) -}}
{{- fail (printf "release name %q must be a DNS label" .Release.Name) -}}
{{- end -}}
{{- if gt (len .Release.Name) 40 -}}
{{- fail (printf "release name %q is too long (max 40 characters, object names are <release>-<service>)" .Release.Name) -}}
{{- end -}}
{{- end -}}

{{/* The shared ConfigMap (umbrella only). Arg: root context of the umbrella. */}}
{{- define "quire-lib.sharedConfigMap" -}}
{{- $g := .Values.global | default dict -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "quire-lib.sharedName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.sharedLabels" . | nindent 4 }}
data:
  # Services bind 127.0.0.1 unless told otherwise; in a pod they must listen on all interfaces.
  BIND_HOST: {{ $g.bindHost | default "0.0.0.0" | quote }}
  LOG_LEVEL: {{ $g.logLevel | default "info" | quote }}
  {{- with ($g.mongodb | default dict).dbPrefix }}
  DB_PREFIX: {{ . | quote }}
  {{- end }}
  PUBLIC_BASE_URL: {{ include "quire-lib.publicBaseUrl" . | quote }}
  {{- with include "quire-lib.filesBaseUrl" . }}
  FILES_BASE_URL: {{ . | quote }}
  {{- end }}
  REDIS_PREFIX: {{ $g.redisPrefix | default "quire:" | quote }}
  {{- range $svc := splitList " " (include "quire-lib.backends" .) }}
  {{- $host := include "quire-lib.serviceFullname" (list $ $svc) }}
  {{- $prefix := include "quire-lib.envPrefix" $svc }}
  {{- /* The backend's headless Service: clients resolve every ready pod and balance calls over them (round_robin) */}}
  {{ $prefix }}_GRPC_ADDR: {{ include "quire-lib.grpcAddr" (list $ $svc) | quote }}
  {{ $prefix }}_HTTP_URL: {{ printf "http://%s:%v" $host (include "quire-lib.httpPort" $) | quote }}
  {{- end }}
  {{- range $key, $value := $g.tenantLimits }}
  {{ $key }}: {{ $value | toString | quote }}
  {{- end }}
  {{- range $key, $value := $g.extraConfig }}
  {{ $key }}: {{ $value | toString | quote }}
  {{- end }}
{{- end -}}

{{/*
The shared Secret (umbrella only): INTERNAL_HMAC_SECRET, MONGODB_URI,
<SERVICE>_MONGODB_URI and REDIS_URL, each unless an existing Secret is used.
INTERNAL_HMAC_SECRET is generated once when not given and kept on upgrades.
*/}}
{{- define "quire-lib.sharedSecret" -}}
{{- $g := .Values.global | default dict -}}
{{- $internal := $g.internalSecret | default dict -}}
{{- $mongo := $g.mongodb | default dict -}}
{{- $redis := $g.redis | default dict -}}
{{- $data := dict -}}
{{- if not $internal.existingSecret -}}
{{- $value := $internal.value -}}
{{- if not $value -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "quire-lib.sharedName" .) -}}
{{- if and $existing $existing.data (hasKey $existing.data "INTERNAL_HMAC_SECRET") -}}
{{- $value = index $existing.data "INTERNAL_HMAC_SECRET" | b64dec -}}
{{- else -}}
{{- $value = randAlphaNum 64 -}}
{{- end -}}
{{- end -}}
{{- $_ := set $data "INTERNAL_HMAC_SECRET" $value -}}
{{- end -}}
{{- if and $mongo.uri (not $mongo.existingSecret) -}}
{{- $_ := set $data "MONGODB_URI" $mongo.uri -}}
{{- end -}}
{{- range $svc, $uri := $mongo.serviceUris -}}
{{- if $uri -}}
{{- $_ := set $data (printf "%s_MONGODB_URI" (include "quire-lib.envPrefix" $svc)) $uri -}}
{{- end -}}
{{- end -}}
{{- if and $redis.url (not $redis.existingSecret) -}}
{{- $_ := set $data "REDIS_URL" $redis.url -}}
{{- end -}}
{{- if $data -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "quire-lib.sharedName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.sharedLabels" . | nindent 4 }}
type: Opaque
data:
  {{- range $key, $value := $data }}
  {{ $key }}: {{ $value | toString | b64enc | quote }}
  {{- end }}
{{- end -}}
{{- end -}}

{{/*
The Secret holding INTEGRATIONS_SECRETS_KEY (umbrella only, when integrations is enabled and no
existing Secret is named): the key integrations' secrets and signing secrets are encrypted with
at rest. Generated once when not given and kept on upgrades; kept by Helm on uninstall too
(`helm.sh/resource-policy: keep`), since losing it makes every stored secret unreadable.
*/}}
{{- define "quire-lib.integrationsSecret" -}}
{{- $g := .Values.global | default dict -}}
{{- $s := $g.integrationsSecretsKey | default dict -}}
{{- if not $s.existingSecret -}}
{{- $name := include "quire-lib.integrationsSecretName" . -}}
{{- $value := $s.value -}}
{{- if not $value -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace $name -}}
{{- if and $existing $existing.data (hasKey $existing.data "INTEGRATIONS_SECRETS_KEY") -}}
{{- $value = index $existing.data "INTEGRATIONS_SECRETS_KEY" | b64dec -}}
{{- else -}}
{{- $value = randAlphaNum 64 -}}
{{- end -}}
{{- end -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ $name }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.sharedLabels" . | nindent 4 }}
  annotations:
    helm.sh/resource-policy: keep
type: Opaque
data:
  INTEGRATIONS_SECRETS_KEY: {{ $value | b64enc | quote }}
{{- end -}}
{{- end -}}

{{/*
env + envFrom of a service container. Arg: list $ $v (root context, effective values).
Container-level env wins over envFrom, so per-service settings override the shared ConfigMap.
*/}}
{{- define "quire-lib.containerEnv" -}}
{{- $ctx := index . 0 -}}
{{- $v := index . 1 -}}
{{- $g := $ctx.Values.global | default dict -}}
{{- $isGateway := include "quire-lib.isGateway" $ctx -}}
envFrom:
  - configMapRef:
      name: {{ include "quire-lib.sharedName" $ctx }}
  {{- with $v.extraEnvFrom }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
env:
  {{- if $isGateway }}
  - name: PORT
    value: {{ (include "quire-lib.httpPort" $ctx) | quote }}
  {{- if and $v.metrics $v.metrics.enabled }}
  - name: METRICS_PORT
    value: {{ $v.metrics.port | quote }}
  {{- end }}
  - name: RATE_LIMIT_POINTS
    value: {{ $v.rateLimit.points | quote }}
  - name: RATE_LIMIT_DURATION_SECONDS
    value: {{ $v.rateLimit.durationSeconds | quote }}
  {{- /* X-Forwarded-For is believed only from these; with the Ingress on and nothing set, the in-cluster ranges it connects from */}}
  {{- $trusted := $v.trustedProxies | default "" }}
  {{- if and (not $trusted) $v.ingress $v.ingress.enabled }}{{ $trusted = "uniquelocal" }}{{ end }}
  - name: TRUSTED_PROXIES
    value: {{ $trusted | quote }}
  {{- else }}
  - name: HTTP_PORT
    value: {{ (include "quire-lib.httpPort" $ctx) | quote }}
  - name: GRPC_PORT
    value: {{ (include "quire-lib.grpcPort" $ctx) | quote }}
  {{- /* Servers close connections this old (their calls finish first): clients re-resolve the headless Service and reach new pods */}}
  - name: GRPC_MAX_CONNECTION_AGE_MS
    value: {{ include "quire-lib.grpcMaxConnectionAgeMs" $ctx | quote }}
  {{- with $v.cacheBudgetMb }}
  - name: CACHE_BUDGET_MB
    value: {{ . | quote }}
  {{- end }}
  {{- end }}
  {{- /* On SIGTERM: not ready (/readyz 503, gRPC NOT_SERVING) but still serving for this long, then in-flight work finishes */}}
  - name: SHUTDOWN_DRAIN_MS
    value: {{ (include "quire-lib.shutdown" (list $ctx $v) | fromJson).drainMs | quote }}
  {{- include "quire-lib.otelEnv" $ctx | nindent 2 }}
  {{- with $v.logLevel }}
  - name: LOG_LEVEL
    value: {{ . | quote }}
  {{- end }}
  {{- include "quire-lib.secretEnv" (list "INTERNAL_HMAC_SECRET" (include "quire-lib.internalSecretRef" $ctx) false) | nindent 2 }}
  {{- include "quire-lib.secretEnv" (list "REDIS_URL" (include "quire-lib.redisSecretRef" $ctx) false) | nindent 2 }}
  {{- if eq $ctx.Chart.Name "integrations" }}
  {{- include "quire-lib.secretEnv" (list "INTEGRATIONS_SECRETS_KEY" (include "quire-lib.integrationsSecretRef" $ctx) false) | nindent 2 }}
  {{- end }}
  {{- if eq $ctx.Chart.Name "insights" }}
  {{- include "quire-lib.insightsProviderEnv" $v | nindent 2 }}
  {{- end }}
  {{- if and (not $isGateway) (dig "ferretdb" "enabled" false $g) }}
  {{- /* FerretDB deployed by the chart: its Service, and the PostgreSQL database behind it (indexes, write serialization) */}}
  - name: MONGODB_URI
    value: {{ include "quire-lib.ferretdbUri" $ctx | quote }}
  {{- include "quire-lib.secretEnv" (list "QUIRE_FERRETDB_POSTGRES_URL" (include "quire-lib.ferretdbPostgresSecretRef" $ctx) false) | nindent 2 }}
  {{- else if not $isGateway }}
  {{- $mongo := $g.mongodb | default dict }}
  {{- $serviceKey := printf "%s_MONGODB_URI" (include "quire-lib.envPrefix" $ctx.Chart.Name) }}
  {{- $serviceUri := index ($mongo.serviceUris | default dict) $ctx.Chart.Name }}
  {{- if or $mongo.uri $mongo.existingSecret }}
  {{- /* optional when a per-service URI is provided instead */}}
  {{- include "quire-lib.secretEnv" (list "MONGODB_URI" (include "quire-lib.mongodbSecretRef" $ctx) (not (empty $serviceUri))) | nindent 2 }}
  {{- end }}
  {{- if $serviceUri }}
  {{- include "quire-lib.secretEnv" (list $serviceKey (printf "name: %s\nkey: %s" (include "quire-lib.sharedName" $ctx) $serviceKey) false) | nindent 2 }}
  {{- else if $mongo.existingSecret }}
  {{- include "quire-lib.secretEnv" (list $serviceKey (printf "name: %s\nkey: %s" $mongo.existingSecret $serviceKey) true) | nindent 2 }}
  {{- end }}
  {{- end }}
  {{- with $v.extraEnv }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- end -}}

{{/*
The insights service's optional providers (values "insights.providers"): an OpenAI-compatible
API that improves conversation insights, and the translation provider. API keys come from
Secrets only. Arg: the effective values of the insights chart.
*/}}
{{- define "quire-lib.insightsProviderEnv" -}}
{{- $p := .providers | default dict -}}
{{- $llm := $p.llm | default dict -}}
{{- $tr := $p.translation | default dict -}}
{{- $type := $tr.type | default "none" -}}
{{- if not (has $type (list "none" "libretranslate" "openai")) -}}
{{- fail "insights.providers.translation.type must be one of: none, libretranslate, openai" -}}
{{- end -}}
{{- if and (ne $type "none") (not $tr.url) -}}
{{- fail "insights.providers.translation.url is required when insights.providers.translation.type is not none" -}}
{{- end -}}
{{- range $url := list $llm.url $tr.url -}}
{{- if and $url (not (regexMatch "^https?://[^/]" $url)) -}}
{{- fail "insights.providers.*.url must be an absolute http(s) URL" -}}
{{- end -}}
{{- end -}}
- name: TRANSLATION_PROVIDER
  value: {{ $type | quote }}
{{- with $tr.url }}
- name: TRANSLATION_PROVIDER_URL
  value: {{ . | quote }}
{{- end }}
{{- with $tr.model }}
- name: TRANSLATION_PROVIDER_MODEL
  value: {{ . | quote }}
{{- end }}
{{- with $tr.apiKeySecret }}
{{ include "quire-lib.secretEnv" (list "TRANSLATION_PROVIDER_API_KEY" (printf "name: %s\nkey: %s" .name (.key | default "api-key")) false) }}
{{- end }}
{{- with $llm.url }}
- name: INSIGHTS_LLM_URL
  value: {{ . | quote }}
{{- end }}
{{- with $llm.model }}
- name: INSIGHTS_LLM_MODEL
  value: {{ . | quote }}
{{- end }}
{{- with $llm.embeddingsModel }}
- name: INSIGHTS_EMBEDDINGS_MODEL
  value: {{ . | quote }}
{{- end }}
{{- with $llm.apiKeySecret }}
{{ include "quire-lib.secretEnv" (list "INSIGHTS_LLM_API_KEY" (printf "name: %s\nkey: %s" .name (.key | default "api-key")) false) }}
{{- end }}
{{- with $p.timeoutMs }}
- name: PROVIDER_TIMEOUT_MS
  value: {{ . | quote }}
{{- end }}
{{- end -}}

{{/*
A whole number setting, checked. Arg: list name value default (the default when the value is
null or ""). Output: the number. Values read from YAML files are float64, from --set int64.
*/}}
{{- define "quire-lib.wholeNumber" -}}
{{- $name := index . 0 -}}
{{- $value := index . 1 -}}
{{- if or (kindIs "invalid" $value) (eq (toString $value) "") -}}
{{- $value = index . 2 -}}
{{- end -}}
{{- if or (kindIs "float64" $value) (kindIs "int64" $value) (kindIs "int" $value) -}}
{{- if or (lt (float64 $value) 0.0) (ne (float64 (int64 $value)) (float64 $value)) -}}
{{- fail (printf "%s must be a whole number >= 0 (got %v)" $name $value) -}}
{{- end -}}
{{- int64 $value -}}
{{- else if regexMatch "^[0-9]+$" (toString $value) -}}
{{- atoi (toString $value) -}}
{{- else -}}
{{- fail (printf "%s must be a whole number >= 0 (got %v)" $name $value) -}}
{{- end -}}
{{- end -}}

{{/* GRPC_MAX_CONNECTION_AGE_MS of the backends: global.grpc.maxConnectionAgeMs (default 30000, at least 1000). Arg: root context. */}}
{{- define "quire-lib.grpcMaxConnectionAgeMs" -}}
{{- $age := include "quire-lib.wholeNumber" (list "global.grpc.maxConnectionAgeMs" (dig "grpc" "maxConnectionAgeMs" nil (.Values.global | default dict)) 30000) -}}
{{- if lt (atoi $age) 1000 -}}
{{- fail (printf "global.grpc.maxConnectionAgeMs must be at least 1000 (got %s)" $age) -}}
{{- end -}}
{{- $age -}}
{{- end -}}

{{/*
Shutdown settings of a service (global.shutdown; the service's own terminationGracePeriodSeconds,
when set, overrides the grace period), checked. Arg: list $ $v (root context, effective values of
the service; an empty dict for the global settings alone). Output: JSON with string values
{preStopSeconds, drainMs, terminationGracePeriodSeconds}.

The pod's grace period covers, in order: the preStop sleep (Kubernetes takes the pod out of the
Services and DNS meanwhile), then after SIGTERM the drain (not ready, still serving) and the
in-flight requests and calls finishing. It must be larger than
preStopSeconds + drainMs / 1000 + 25 s, or the kubelet kills work in flight.
*/}}
{{- define "quire-lib.shutdown" -}}
{{- $ctx := index . 0 -}}
{{- $v := index . 1 -}}
{{- $s := dig "shutdown" dict ($ctx.Values.global | default dict) -}}
{{- $preStop := include "quire-lib.wholeNumber" (list "global.shutdown.preStopSeconds" $s.preStopSeconds 5) -}}
{{- $drainMs := include "quire-lib.wholeNumber" (list "global.shutdown.drainMs" $s.drainMs 2000) -}}
{{- $graceName := "global.shutdown.terminationGracePeriodSeconds" -}}
{{- $grace := $s.terminationGracePeriodSeconds -}}
{{- if not (or (kindIs "invalid" $v.terminationGracePeriodSeconds) (eq (toString $v.terminationGracePeriodSeconds) "")) -}}
{{- $graceName = printf "%s.terminationGracePeriodSeconds" $ctx.Chart.Name -}}
{{- $grace = $v.terminationGracePeriodSeconds -}}
{{- end -}}
{{- $grace = include "quire-lib.wholeNumber" (list $graceName $grace 40) -}}
{{- if gt (atoi $drainMs) 60000 -}}
{{- fail (printf "global.shutdown.drainMs must be at most 60000 (got %s)" $drainMs) -}}
{{- end -}}
{{- $neededMs := add (mul (atoi $preStop) 1000) (atoi $drainMs) 25000 -}}
{{- if le (mul (atoi $grace) 1000) $neededMs -}}
{{- fail (printf "%s (%s s) must be larger than global.shutdown.preStopSeconds (%s s) + global.shutdown.drainMs (%s ms) + 25 s for requests and calls in flight = %v s" $graceName $grace $preStop $drainMs (divf $neededMs 1000.0)) -}}
{{- end -}}
{{- dict "preStopSeconds" $preStop "drainMs" $drainMs "terminationGracePeriodSeconds" $grace | toJson -}}
{{- end -}}

{{/*
Tracing of a service (OpenTelemetry, OTEL_* only): set when global.otel.endpoint is. Arg: root context.
*/}}
{{- define "quire-lib.otelEnv" -}}
{{- $otel := dig "otel" dict (.Values.global | default dict) -}}
{{- if $otel.endpoint -}}
{{- if not (has ($otel.protocol | default "http/protobuf") (list "http/protobuf" "http/json")) -}}
{{- fail (printf "global.otel.protocol must be http/protobuf or http/json, not %q" $otel.protocol) -}}
{{- end -}}
- name: OTEL_SERVICE_NAME
  value: {{ .Chart.Name | quote }}
- name: OTEL_EXPORTER_OTLP_ENDPOINT
  value: {{ $otel.endpoint | quote }}
- name: OTEL_EXPORTER_OTLP_PROTOCOL
  value: {{ $otel.protocol | default "http/protobuf" | quote }}
- name: OTEL_TRACES_SAMPLER
  value: {{ $otel.sampler | default "parentbased_traceidratio" | quote }}
- name: OTEL_TRACES_SAMPLER_ARG
  value: {{ $otel.samplerArg | default "0.1" | quote }}
- name: K8S_POD_NAME
  valueFrom:
    fieldRef:
      fieldPath: metadata.name
- name: OTEL_RESOURCE_ATTRIBUTES
  value: {{ printf "service.namespace=quire,k8s.namespace.name=%s,k8s.pod.name=$(K8S_POD_NAME)%s" .Release.Namespace (ternary (printf ",%s" $otel.resourceAttributes) "" (not (empty $otel.resourceAttributes))) | quote }}
{{- end -}}
{{- end }}

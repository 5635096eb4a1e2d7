{{/*
Shared helpers for the Quire charts.

Conventions:
- Every service subchart is named after its service (gateway, identity, ...).
- Kubernetes objects of a service are named "<release>-<service>"; the umbrella
  relies on this to compute the *_GRPC_ADDR / *_HTTP_URL values. A backend's
  headless gRPC Service is "<release>-<service>-grpc".
- Objects shared by all services (ConfigMap, Secret) are named "<release>-shared".
*/}}

{{/* All deployable services, gateway first. */}}
{{- define "quire-lib.services" -}}
gateway identity content publishing integrations insights
{{- end -}}

{{/* Backend services (everything except the gateway). */}}
{{- define "quire-lib.backends" -}}
identity content publishing integrations insights
{{- end -}}

{{/* "<release>-<service>" for a given service name. Usage: include "quire-lib.serviceFullname" (list $ "identity") */}}
{{- define "quire-lib.serviceFullname" -}}
{{- $ctx := index . 0 -}}
{{- $name := index . 1 -}}
{{- printf "%s-%s" $ctx.Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Name of a backend's headless gRPC Service: "<release>-<service>-grpc". Usage: include "quire-lib.grpcServiceName" (list $ "identity") */}}
{{- define "quire-lib.grpcServiceName" -}}
{{- printf "%s-grpc" (include "quire-lib.serviceFullname" .) -}}
{{- end -}}

{{/*
<SERVICE>_GRPC_ADDR of a backend: "dns:///<release>-<service>-grpc.<namespace>.svc.<cluster domain>:<grpc port>".
The headless Service resolves to one address per ready pod; clients balance their calls over all of
them (round_robin) and re-resolve when a server closes a connection (global.grpc.maxConnectionAgeMs).
Usage: include "quire-lib.grpcAddr" (list $ "identity")
*/}}
{{- define "quire-lib.grpcAddr" -}}
{{- $ctx := index . 0 -}}
{{- printf "dns:///%s.%s.svc.%s:%v" (include "quire-lib.grpcServiceName" .) $ctx.Release.Namespace (include "quire-lib.clusterDomain" $ctx) (include "quire-lib.grpcPort" $ctx) -}}
{{- end -}}

{{/* The cluster's DNS domain (global.clusterDomain, default cluster.local). */}}
{{- define "quire-lib.clusterDomain" -}}
{{- dig "clusterDomain" "cluster.local" (.Values.global | default dict) | default "cluster.local" | trimSuffix "." -}}
{{- end -}}

{{/* Full name of the current (sub)chart's service. */}}
{{- define "quire-lib.fullname" -}}
{{- include "quire-lib.serviceFullname" (list . .Chart.Name) -}}
{{- end -}}

{{/* Name of the shared ConfigMap and Secret. */}}
{{- define "quire-lib.sharedName" -}}
{{- printf "%s-shared" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "quire-lib.chartLabel" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Selector labels of the current service (stable; never add mutable labels here). */}}
{{- define "quire-lib.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Common labels of the current service. */}}
{{- define "quire-lib.labels" -}}
helm.sh/chart: {{ include "quire-lib.chartLabel" . }}
{{ include "quire-lib.selectorLabels" . }}
app.kubernetes.io/part-of: quire
{{- with .Chart.AppVersion }}
app.kubernetes.io/version: {{ . | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Labels for objects shared by all services (umbrella chart). */}}
{{- define "quire-lib.sharedLabels" -}}
helm.sh/chart: {{ include "quire-lib.chartLabel" . }}
app.kubernetes.io/name: quire
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: quire
{{- with .Chart.AppVersion }}
app.kubernetes.io/version: {{ . | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/*
Recursive merge: copies src into dst (both dicts), overwriting scalars and lists,
recursing into nested dicts. Unlike sprig's mergeOverwrite, false/0/"" in src
do override dst. Usage: include "quire-lib.merge" (list $dst $src)
*/}}
{{- define "quire-lib.merge" -}}
{{- $dst := index . 0 -}}
{{- $src := index . 1 -}}
{{- range $key, $value := $src -}}
{{- $current := index $dst $key -}}
{{- if and (kindIs "map" $value) (kindIs "map" $current) -}}
{{- include "quire-lib.merge" (list $current $value) -}}
{{- else -}}
{{- $_ := set $dst $key (deepCopy $value) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Effective values of the current service, merged into the dict passed as the
second argument:  lib defaults < global.serviceDefaults < the service's values.
Usage: {{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
*/}}
{{- define "quire-lib.values" -}}
{{- $ctx := index . 0 -}}
{{- $out := index . 1 -}}
{{- include "quire-lib.merge" (list $out (include "quire-lib.defaults" $ctx | fromYaml)) -}}
{{- $global := $ctx.Values.global | default dict -}}
{{- with $global.serviceDefaults -}}
{{- include "quire-lib.merge" (list $out .) -}}
{{- end -}}
{{- include "quire-lib.merge" (list $out (omit $ctx.Values "global")) -}}
{{- end -}}

{{/* true when the current service is the gateway. */}}
{{- define "quire-lib.isGateway" -}}
{{- if eq .Chart.Name "gateway" -}}true{{- end -}}
{{- end -}}

{{/* Container image: <registry>/<repository>/<service>:<tag>, overridable per service. Arg: list $ $v */}}
{{- define "quire-lib.image" -}}
{{- $ctx := index . 0 -}}
{{- $v := index . 1 -}}
{{- $g := dig "image" dict ($ctx.Values.global | default dict) -}}
{{- $repository := $v.image.repository | default (printf "%s/%s" ($g.repository | default "quire") $ctx.Chart.Name) -}}
{{- $registry := $v.image.registry | default $g.registry -}}
{{- if $registry -}}
{{- $repository = printf "%s/%s" (trimSuffix "/" $registry) $repository -}}
{{- end -}}
{{- $tag := $v.image.tag | default $g.tag | default $ctx.Chart.AppVersion -}}
{{- if $v.image.digest -}}
{{- printf "%s@%s" $repository $v.image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (toString $tag) -}}
{{- end -}}
{{- end -}}

{{/* Public base URL: global.publicBaseUrl, else derived from the gateway ingress, else http://localhost:<gateway port>. Called with the root context of any chart. */}}
{{- define "quire-lib.publicBaseUrl" -}}
{{- $g := .Values.global | default dict -}}
{{- if $g.publicBaseUrl -}}
{{- $g.publicBaseUrl | trimSuffix "/" -}}
{{- else -}}
{{- $gw := (.Values.gateway | default dict) -}}
{{- $ing := ($gw.ingress | default dict) -}}
{{- if and $ing.enabled $ing.hosts -}}
{{- $host := (first $ing.hosts).host -}}
{{- printf "%s://%s" (ternary "https" "http" (not (empty $ing.tls))) $host -}}
{{- else -}}
{{- printf "http://localhost:%v" (include "quire-lib.httpPort" .) -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Files base URL (FILES_BASE_URL): global.filesBaseUrl, else the gateway Ingress's filesHost (https with tls), else empty (the API's URL). Root context of any chart. */}}
{{- define "quire-lib.filesBaseUrl" -}}
{{- $g := .Values.global | default dict -}}
{{- if $g.filesBaseUrl -}}
{{- $g.filesBaseUrl | trimSuffix "/" -}}
{{- else -}}
{{- $ing := ((.Values.gateway | default dict).ingress | default dict) -}}
{{- if and $ing.enabled $ing.filesHost -}}
{{- printf "%s://%s" (ternary "https" "http" (not (empty $ing.tls))) $ing.filesHost -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The host of an http(s) URL, lower-case. Arg: the URL. */}}
{{- define "quire-lib.urlHost" -}}
{{- regexReplaceAll "^https?://([^/:?#]+).*$" . "${1}" | lower -}}
{{- end -}}

{{/* Container/Service ports (global.ports), with defaults so a subchart also renders alone. */}}
{{- define "quire-lib.httpPort" -}}
{{- dig "ports" "http" 8080 (.Values.global | default dict) -}}
{{- end -}}

{{- define "quire-lib.grpcPort" -}}
{{- dig "ports" "grpc" 50051 (.Values.global | default dict) -}}
{{- end -}}

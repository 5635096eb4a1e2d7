{{/*
Monitoring with the Prometheus Operator and Grafana (global.metrics; all off by default):
- a ServiceMonitor per service (rendered by each service subchart): the backends' /metrics on their
  Service's http port, the gateway's on its metrics port through the Service "<release>-gateway-metrics";
- the Grafana dashboards (rendered by the umbrella from its dashboards/*.json) as ConfigMaps;
- the PrometheusRule "<release>-alerts" (rendered by the umbrella).
Series of a service are those of job="<service>": the ServiceMonitors take the job name from the
Service's app.kubernetes.io/name label, and the dashboards and alerts select by it.
*/}}

{{/* global.metrics.<key> as a dict (empty when unset). Arg: list $ key */}}
{{- define "quire-lib.metricsValues" -}}
{{- toYaml (dig "metrics" (index . 1) dict ((index . 0).Values.global | default dict)) -}}
{{- end -}}

{{/* true when the current service serves metrics: every backend, and the gateway with metrics.enabled. Arg: list $ $v */}}
{{- define "quire-lib.servesMetrics" -}}
{{- $ctx := index . 0 -}}
{{- $v := index . 1 -}}
{{- if or (ne (include "quire-lib.isGateway" $ctx) "true") (and $v.metrics $v.metrics.enabled) -}}true{{- end -}}
{{- end -}}

{{/* The labels of the given YAML, then those of the dict `extra` it does not have. Arg: list labelsYaml extra */}}
{{- define "quire-lib.labelsWith" -}}
{{- $base := index . 0 -}}
{{- $extra := index . 1 | default dict -}}
{{- $names := $base | fromYaml -}}
{{- $base }}
{{- range $key, $value := $extra }}
{{- if not (hasKey $names $key) }}
{{ $key }}: {{ toString $value | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
Gateway only, with global.metrics.serviceMonitor.enabled: a headless Service "<release>-gateway-metrics"
with the metrics port alone, for the ServiceMonitor. The gateway's own Service never carries that
port (a LoadBalancer would make it public).
*/}}
{{- define "quire-lib.metricsService" -}}
{{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
{{- $sm := include "quire-lib.metricsValues" (list . "serviceMonitor") | fromYaml -}}
{{- if and $sm.enabled (eq (include "quire-lib.isGateway" .) "true") (include "quire-lib.servesMetrics" (list . $v)) -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ printf "%s-metrics" (include "quire-lib.fullname" .) | trunc 63 | trimSuffix "-" }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: metrics
spec:
  type: ClusterIP
  clusterIP: None
  selector:
    {{- include "quire-lib.selectorLabels" . | nindent 4 }}
  ports:
    - name: metrics
      port: {{ $v.metrics.port }}
      targetPort: metrics
      protocol: TCP
{{- end -}}
{{- end -}}

{{/*
The ServiceMonitor of the current service (global.metrics.serviceMonitor.enabled). A backend's
selector also matches its headless "-grpc" Service, which has no http port: only the Service
"<release>-<service>" gives targets. The gateway's keeps the "service" label of its own metrics
(the service a request was routed to) over the target's (honorLabels).
*/}}
{{- define "quire-lib.serviceMonitor" -}}
{{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
{{- $sm := include "quire-lib.metricsValues" (list . "serviceMonitor") | fromYaml -}}
{{- $isGateway := eq (include "quire-lib.isGateway" .) "true" -}}
{{- if and $sm.enabled (include "quire-lib.servesMetrics" (list . $v)) -}}
apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata:
  name: {{ include "quire-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.labelsWith" (list (include "quire-lib.labels" .) $sm.labels) | nindent 4 }}
spec:
  # job="<service>": the dashboards and alerts select a service's series by it.
  jobLabel: app.kubernetes.io/name
  namespaceSelector:
    matchNames:
      - {{ .Release.Namespace }}
  selector:
    matchLabels:
      {{- include "quire-lib.selectorLabels" . | nindent 6 }}
      {{- if $isGateway }}
      app.kubernetes.io/component: metrics
      {{- end }}
  endpoints:
    - port: {{ ternary "metrics" "http" $isGateway }}
      path: /metrics
      scheme: http
      interval: {{ $sm.interval | default "30s" }}
      scrapeTimeout: {{ $sm.scrapeTimeout | default "10s" }}
      {{- if $isGateway }}
      honorLabels: true
      {{- end }}
      {{- with $sm.relabelings }}
      relabelings:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $sm.metricRelabelings }}
      metricRelabelings:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}
{{- end -}}

{{/*
Umbrella only (it reads the calling chart's files): a ConfigMap per Grafana dashboard of
dashboards/<name>.json, the overview and one per enabled service, labelled for Grafana's dashboard
sidecar (global.metrics.dashboards).
*/}}
{{- define "quire-lib.dashboards" -}}
{{- $d := include "quire-lib.metricsValues" (list . "dashboards") | fromYaml -}}
{{- if $d.enabled -}}
{{- $names := list "overview" -}}
{{- range $svc := splitList " " (include "quire-lib.services" .) -}}
{{- if (index $.Values $svc | default dict).enabled -}}{{- $names = append $names $svc -}}{{- end -}}
{{- end -}}
{{- $label := $d.label | default "grafana_dashboard" -}}
{{- range $i, $name := $names }}
{{- $file := printf "dashboards/%s.json" $name }}
{{- $json := $.Files.Get $file }}
{{- if not $json }}
{{- fail (printf "%s is missing from the chart" $file) }}
{{- end }}
{{- if hasKey (fromJson $json) "Error" }}
{{- fail (printf "%s is not valid JSON: %s" $file (get (fromJson $json) "Error")) }}
{{- end }}
{{- if $i }}
---
{{- end }}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ printf "%s-dashboard-%s" $.Release.Name $name | trunc 63 | trimSuffix "-" }}
  namespace: {{ $d.namespace | default $.Release.Namespace }}
  labels:
    {{- include "quire-lib.labelsWith" (list (include "quire-lib.sharedLabels" $) (merge (dict $label (toString (ternary "1" $d.labelValue (kindIs "invalid" $d.labelValue)))) ($d.labels | default dict))) | nindent 4 }}
  {{- with $d.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
data:
  quire-{{ $name }}.json: |-
    {{- $json | trim | nindent 4 }}
{{- end }}
{{- end -}}
{{- end -}}

{{/* A number (0 or more) of a value, for PromQL (fails otherwise). Arg: list valueName value */}}
{{- define "quire-lib.alertNumber" -}}
{{- $value := toString (index . 1) -}}
{{- if not (regexMatch "^[0-9]+([.][0-9]+)?([eE][+-]?[0-9]+)?$" $value) -}}
{{- fail (printf "global.metrics.alerts.%s must be a number, not %q" (index . 0) $value) -}}
{{- end -}}
{{- $value -}}
{{- end -}}

{{/* A Prometheus duration of a value (fails otherwise). Arg: list valueName value */}}
{{- define "quire-lib.alertDuration" -}}
{{- $value := toString (index . 1) -}}
{{- if not (regexMatch "^[0-9]+(ms|s|m|h|d|w|y)$" $value) -}}
{{- fail (printf "global.metrics.alerts.%s must be a duration such as 5m, not %q" (index . 0) $value) -}}
{{- end -}}
{{- $value -}}
{{- end -}}

{{/*
One alerting rule, an item of a group's rules. Arg: dict with root ($), key (its values under
global.metrics.alerts: severity, for), alert, expr, summary, description.
*/}}
{{- define "quire-lib.alertRule" -}}
{{- $a := include "quire-lib.metricsValues" (list .root "alerts") | fromYaml -}}
{{- $c := index $a .key | default dict -}}
- alert: {{ .alert }}
  expr: |-
    {{- .expr | nindent 4 }}
  {{- with index $c "for" }}
  for: {{ include "quire-lib.alertDuration" (list (printf "%s.for" $.key) .) }}
  {{- end }}
  labels:
    {{- include "quire-lib.labelsWith" (list (printf "severity: %s" ($c.severity | default "warning" | quote)) $a.ruleLabels) | nindent 4 }}
  annotations:
    summary: {{ .summary | quote }}
    description: {{ .description | quote }}
{{- end -}}

{{/*
Umbrella only: the PrometheusRule "<release>-alerts" (global.metrics.alerts.enabled) over the
services enabled, in the release's namespace. The rules on the services' own metrics select their
series by job (the ServiceMonitors'); those on Deployments and pods read kube-state-metrics.
*/}}
{{- define "quire-lib.prometheusRule" -}}
{{- $a := include "quire-lib.metricsValues" (list . "alerts") | fromYaml -}}
{{- if $a.enabled -}}
{{- $ns := .Release.Namespace -}}
{{- $backends := list -}}
{{- range $svc := splitList " " (include "quire-lib.backends" .) -}}
{{- if (index $.Values $svc | default dict).enabled -}}{{- $backends = append $backends $svc -}}{{- end -}}
{{- end -}}
{{- $gw := .Values.gateway | default dict -}}
{{- $gateway := and $gw.enabled (dig "metrics" "enabled" true $gw) -}}
{{- $deployments := list -}}
{{- range $svc := splitList " " (include "quire-lib.services" .) -}}
{{- if (index $.Values $svc | default dict).enabled -}}{{- $deployments = append $deployments (include "quire-lib.serviceFullname" (list $ $svc)) -}}{{- end -}}
{{- end -}}
{{- if dig "ferretdb" "enabled" false (.Values.global | default dict) -}}
{{- $deployments = append $deployments (include "quire-lib.ferretdbName" .) -}}
{{- end -}}
{{- $b := printf "namespace=%q, job=~%q" $ns (join "|" $backends) -}}
{{- $g := printf "namespace=%q, job=\"gateway\"" $ns -}}
{{- $on := dict -}}
{{- range $key := list "errorRatio" "latencyP99" "queueOldestWaiting" "deliveryFailures" "eventStreamLag" "replicasUnavailable" "restarts" -}}
{{- $_ := set $on $key (dig $key "enabled" true $a) -}}
{{- end -}}
{{- $http := list -}}
{{- $work := list -}}
{{- $kube := list -}}

{{- /* 5xx share of the HTTP requests */ -}}
{{- $c := $a.errorRatio | default dict -}}
{{- $t := include "quire-lib.alertNumber" (list "errorRatio.threshold" (dig "threshold" 0.05 $c)) -}}
{{- $min := include "quire-lib.alertNumber" (list "errorRatio.minRequestRate" (dig "minRequestRate" 0 $c)) -}}
{{- $w := include "quire-lib.alertDuration" (list "errorRatio.window" (dig "window" "5m" $c)) -}}
{{- if and $on.errorRatio $backends -}}
{{- $count := printf "http_server_request_duration_seconds_count{%s}" $b -}}
{{- $expr := printf "(\n  sum by (namespace, job) (rate(http_server_request_duration_seconds_count{%s, http_response_status_code=~\"5..\"}[%s]))\n/\n  sum by (namespace, job) (rate(%s[%s]))\n) > %s\nand on (namespace, job)\nsum by (namespace, job) (rate(%s[%s])) > %s" $b $w $count $w $t $count $w $min -}}
{{- $http = append $http (include "quire-lib.alertRule" (dict "root" $ "key" "errorRatio" "alert" "QuireHighErrorRatio" "expr" $expr
  "summary" `Quire {{ $labels.job }} answers {{ $value | humanizePercentage }} of its HTTP requests with a 5xx status`
  "description" (printf "Over the last %s, more than %s of the HTTP requests the %s service answered in namespace %s had a 5xx status (http_server_request_duration_seconds): see its dashboard and logs." $w $t `{{ $labels.job }}` `{{ $labels.namespace }}`))) -}}
{{- end -}}
{{- if and $on.errorRatio $gateway -}}
{{- $count := printf "quire_http_requests_total{%s}" $g -}}
{{- $expr := printf "(\n  sum by (namespace, service) (rate(quire_http_requests_total{%s, status=~\"5..\"}[%s]))\n/\n  sum by (namespace, service) (rate(%s[%s]))\n) > %s\nand on (namespace, service)\nsum by (namespace, service) (rate(%s[%s])) > %s" $g $w $count $w $t $count $w $min -}}
{{- $http = append $http (include "quire-lib.alertRule" (dict "root" $ "key" "errorRatio" "alert" "QuireGatewayHighErrorRatio" "expr" $expr
  "summary" `The Quire gateway answers {{ $value | humanizePercentage }} of the requests it routes to {{ $labels.service }} with a 5xx status`
  "description" (printf "Over the last %s, more than %s of the requests the gateway routed to %s (\"gateway\": answered by the gateway itself) in namespace %s had a 5xx status (quire_http_requests_total): the service may be down, unreachable or failing." $w $t `{{ $labels.service }}` `{{ $labels.namespace }}`))) -}}
{{- end -}}

{{- /* p99 of the HTTP request durations */ -}}
{{- $c = $a.latencyP99 | default dict -}}
{{- $t = include "quire-lib.alertNumber" (list "latencyP99.threshold" (dig "threshold" 2.5 $c)) -}}
{{- $min = include "quire-lib.alertNumber" (list "latencyP99.minRequestRate" (dig "minRequestRate" 0 $c)) -}}
{{- $w = include "quire-lib.alertDuration" (list "latencyP99.window" (dig "window" "5m" $c)) -}}
{{- if and $on.latencyP99 $backends -}}
{{- $expr := printf "histogram_quantile(0.99, sum by (namespace, job, le) (rate(http_server_request_duration_seconds_bucket{%s}[%s]))) > %s\nand on (namespace, job)\nsum by (namespace, job) (rate(http_server_request_duration_seconds_count{%s}[%s])) > %s" $b $w $t $b $w $min -}}
{{- $http = append $http (include "quire-lib.alertRule" (dict "root" $ "key" "latencyP99" "alert" "QuireSlowRequests" "expr" $expr
  "summary" `Quire {{ $labels.job }}: HTTP p99 is {{ $value | humanizeDuration }}`
  "description" (printf "Over the last %s, the 99th percentile of the HTTP request durations of the %s service in namespace %s was above %s s (http_server_request_duration_seconds): see the routes' latency on its dashboard." $w `{{ $labels.job }}` `{{ $labels.namespace }}` $t))) -}}
{{- end -}}
{{- if and $on.latencyP99 $gateway -}}
{{- $expr := printf "histogram_quantile(0.99, sum by (namespace, service, le) (rate(quire_http_request_duration_seconds_bucket{%s}[%s]))) > %s\nand on (namespace, service)\nsum by (namespace, service) (rate(quire_http_requests_total{%s}[%s])) > %s" $g $w $t $g $w $min -}}
{{- $http = append $http (include "quire-lib.alertRule" (dict "root" $ "key" "latencyP99" "alert" "QuireGatewaySlowRequests" "expr" $expr
  "summary" `Quire gateway: p99 of the requests routed to {{ $labels.service }} is {{ $value | humanizeDuration }}`
  "description" (printf "Over the last %s, the 99th percentile of the durations of the requests the gateway routed to %s in namespace %s was above %s s (quire_http_request_duration_seconds)." $w `{{ $labels.service }}` `{{ $labels.namespace }}` $t))) -}}
{{- end -}}

{{- /* Background work */ -}}
{{- $c = $a.queueOldestWaiting | default dict -}}
{{- if and $on.queueOldestWaiting $backends -}}
{{- $t = include "quire-lib.alertNumber" (list "queueOldestWaiting.threshold" (dig "threshold" 600 $c)) -}}
{{- $expr := printf "max by (namespace, queue) (quire_queue_oldest_waiting_age_seconds{%s}) > %s" $b $t -}}
{{- $work = append $work (include "quire-lib.alertRule" (dict "root" $ "key" "queueOldestWaiting" "alert" "QuireQueueJobWaiting" "expr" $expr
  "summary" `Quire queue {{ $labels.queue }}: a job has waited {{ $value | humanizeDuration }}`
  "description" (printf "The oldest waiting job of the queue %s in namespace %s has waited more than %s s (quire_queue_oldest_waiting_age_seconds): its workers are stuck, too few or failing (see quire_jobs_total and the queue depth on the dashboards)." `{{ $labels.queue }}` `{{ $labels.namespace }}` $t))) -}}
{{- end -}}
{{- $c = $a.deliveryFailures | default dict -}}
{{- if and $on.deliveryFailures (has "integrations" $backends) -}}
{{- $t = include "quire-lib.alertNumber" (list "deliveryFailures.threshold" (dig "threshold" 0.1 $c)) -}}
{{- $min = include "quire-lib.alertNumber" (list "deliveryFailures.minRate" (dig "minRate" 0 $c)) -}}
{{- $w = include "quire-lib.alertDuration" (list "deliveryFailures.window" (dig "window" "15m" $c)) -}}
{{- $i := printf "namespace=%q, job=\"integrations\"" $ns -}}
{{- $ended := printf "quire_integration_deliveries_total{%s, outcome=~\"success|failed\"}" $i -}}
{{- $expr := printf "(\n  sum by (namespace) (rate(quire_integration_deliveries_total{%s, outcome=\"failed\"}[%s]))\n/\n  sum by (namespace) (rate(%s[%s]))\n) > %s\nand on (namespace)\nsum by (namespace) (rate(%s[%s])) > %s" $i $w $ended $w $t $ended $w $min -}}
{{- $work = append $work (include "quire-lib.alertRule" (dict "root" $ "key" "deliveryFailures" "alert" "QuireDeliveryFailures" "expr" $expr
  "summary" `Quire integrations: {{ $value | humanizePercentage }} of the event deliveries fail`
  "description" (printf "Over the last %s, more than %s of the integration deliveries that ended in namespace %s failed for good (quire_integration_deliveries_total, outcome failed among success and failed): receivers are down or refusing." $w $t `{{ $labels.namespace }}`))) -}}
{{- end -}}
{{- $c = $a.eventStreamLag | default dict -}}
{{- if and $on.eventStreamLag $backends -}}
{{- $t = include "quire-lib.alertNumber" (list "eventStreamLag.threshold" (dig "threshold" 1000 $c)) -}}
{{- $expr := printf "max by (namespace, stream, group) (quire_event_stream_lag{%s}) > %s" $b $t -}}
{{- $work = append $work (include "quire-lib.alertRule" (dict "root" $ "key" "eventStreamLag" "alert" "QuireEventStreamLag" "expr" $expr
  "summary" `Quire event stream {{ $labels.stream }}: consumer group {{ $labels.group }} is {{ $value }} entries behind`
  "description" (printf "The consumer group %s has more than %s entries of the stream %s in namespace %s not read yet (quire_event_stream_lag): its consumers are stopped or slower than the producers." `{{ $labels.group }}` $t `{{ $labels.stream }}` `{{ $labels.namespace }}`))) -}}
{{- end -}}

{{- /* Deployments and pods (kube-state-metrics) */ -}}
{{- $d := printf "(%s)" (join "|" $deployments) -}}
{{- if and $on.replicasUnavailable $deployments -}}
{{- $expr := printf "max by (namespace, deployment) (kube_deployment_status_replicas_unavailable{namespace=%q, deployment=~%q}) > 0" $ns $d -}}
{{- $kube = append $kube (include "quire-lib.alertRule" (dict "root" $ "key" "replicasUnavailable" "alert" "QuireReplicasUnavailable" "expr" $expr
  "summary" `Quire Deployment {{ $labels.deployment }}: {{ $value }} replica(s) not available`
  "description" `{{ $value }} replica(s) of the Deployment {{ $labels.deployment }} in namespace {{ $labels.namespace }} are not available (kube_deployment_status_replicas_unavailable): pods failing their readiness probe, crashing, or not scheduled.`)) -}}
{{- end -}}
{{- $c = $a.restarts | default dict -}}
{{- if and $on.restarts $deployments -}}
{{- $t = include "quire-lib.alertNumber" (list "restarts.threshold" (dig "threshold" 0 $c)) -}}
{{- $w = include "quire-lib.alertDuration" (list "restarts.window" (dig "window" "15m" $c)) -}}
{{- $expr := printf "max by (namespace, pod, container) (increase(kube_pod_container_status_restarts_total{namespace=%q, pod=~%q}[%s])) > %s" $ns (printf "%s-[a-z0-9]+-[a-z0-9]+" $d) $w $t -}}
{{- $kube = append $kube (include "quire-lib.alertRule" (dict "root" $ "key" "restarts" "alert" "QuireProcessRestarts" "expr" $expr
  "summary" `Quire pod {{ $labels.pod }}: container {{ $labels.container }} restarted`
  "description" (printf "The container %s of the pod %s in namespace %s restarted more than %s time(s) in %s (kube_pod_container_status_restarts_total): the process crashed, ran out of memory or failed its liveness probe." `{{ $labels.container }}` `{{ $labels.pod }}` `{{ $labels.namespace }}` $t $w))) -}}
{{- end -}}

{{- $groups := list -}}
{{- range $group := list (list "quire.http" $http) (list "quire.work" $work) (list "quire.kubernetes" $kube) -}}
{{- if index $group 1 -}}
{{- $groups = append $groups $group -}}
{{- end -}}
{{- end -}}
{{- if $groups -}}
apiVersion: monitoring.coreos.com/v1
kind: PrometheusRule
metadata:
  name: {{ printf "%s-alerts" .Release.Name | trunc 63 | trimSuffix "-" }}
  namespace: {{ $ns }}
  labels:
    {{- include "quire-lib.labelsWith" (list (include "quire-lib.sharedLabels" .) $a.labels) | nindent 4 }}
spec:
  groups:
    {{- range $groups }}
    - name: {{ index . 0 }}
      rules:
        {{- range index . 1 }}
        {{- . | nindent 8 }}
        {{- end }}
    {{- end }}
{{- end -}}
{{- end -}}
{{- end -}}

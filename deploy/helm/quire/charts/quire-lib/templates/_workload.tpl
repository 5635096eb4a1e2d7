{{/*
Per-service objects. Each service subchart calls these with its root context:
  {{ include "quire-lib.deployment" . }}
*/}}

{{- define "quire-lib.serviceAccountName" -}}
{{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
{{- if $v.serviceAccount.create -}}
{{- $v.serviceAccount.name | default (include "quire-lib.fullname" .) -}}
{{- else -}}
{{- $v.serviceAccount.name | default "default" -}}
{{- end -}}
{{- end -}}

{{- define "quire-lib.serviceaccount" -}}
{{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
{{- if $v.serviceAccount.create -}}
apiVersion: v1
kind: ServiceAccount
metadata:
  name: {{ include "quire-lib.serviceAccountName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.labels" . | nindent 4 }}
  {{- with $v.serviceAccount.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
automountServiceAccountToken: false
{{- end -}}
{{- end -}}

{{- define "quire-lib.deployment" -}}
{{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
{{- $g := .Values.global | default dict -}}
{{- $isGateway := include "quire-lib.isGateway" . -}}
{{- $shutdown := include "quire-lib.shutdown" (list . $v) | fromJson -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "quire-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.labels" . | nindent 4 }}
    app.kubernetes.io/component: {{ ternary "gateway" "backend" (eq $isGateway "true") }}
spec:
  {{- if not $v.autoscaling.enabled }}
  replicas: {{ $v.replicaCount }}
  {{- end }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "quire-lib.selectorLabels" . | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  template:
    metadata:
      labels:
        {{- include "quire-lib.labels" . | nindent 8 }}
        app.kubernetes.io/component: {{ ternary "gateway" "backend" (eq $isGateway "true") }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        # Roll the pods when shared configuration changes (global.metrics is the monitoring's alone).
        checksum/global: {{ omit $g "serviceDefaults" "metrics" | toJson | sha256sum }}
        {{- $annotations := deepCopy ($v.podAnnotations | default dict) }}
        {{- if and (eq $isGateway "true") $v.metrics $v.metrics.enabled }}
        {{- /* Where Prometheus scrapes the gateway: its metrics port, not the public one */}}
        {{- $_ := merge $annotations (dict "prometheus.io/scrape" "true" "prometheus.io/port" (toString $v.metrics.port) "prometheus.io/path" "/metrics") }}
        {{- else if ne $isGateway "true" }}
        {{- /* A backend serves /metrics on its HTTP port */}}
        {{- $_ := merge $annotations (dict "prometheus.io/scrape" "true" "prometheus.io/port" (toString (include "quire-lib.httpPort" $)) "prometheus.io/path" "/metrics") }}
        {{- end }}
        {{- with $annotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "quire-lib.serviceAccountName" . }}
      automountServiceAccountToken: false
      {{- with (dig "image" "pullSecrets" list $g) }}
      imagePullSecrets:
        {{- range . }}
        - name: {{ . }}
        {{- end }}
      {{- end }}
      {{- with $v.priorityClassName }}
      priorityClassName: {{ . }}
      {{- end }}
      securityContext:
        {{- toYaml $v.podSecurityContext | nindent 8 }}
      # Covers the preStop sleep, the drain (SHUTDOWN_DRAIN_MS) and the work in flight (checked).
      terminationGracePeriodSeconds: {{ $shutdown.terminationGracePeriodSeconds }}
      containers:
        - name: {{ .Chart.Name }}
          image: {{ include "quire-lib.image" (list . $v) | quote }}
          imagePullPolicy: {{ $v.image.pullPolicy | default (dig "image" "pullPolicy" "" $g) | default "IfNotPresent" }}
          securityContext:
            {{- toYaml $v.securityContext | nindent 12 }}
          ports:
            - name: http
              containerPort: {{ (include "quire-lib.httpPort" $) }}
              protocol: TCP
            {{- if ne $isGateway "true" }}
            - name: grpc
              containerPort: {{ (include "quire-lib.grpcPort" $) }}
              protocol: TCP
            {{- else if and $v.metrics $v.metrics.enabled }}
            - name: metrics
              containerPort: {{ $v.metrics.port }}
              protocol: TCP
            {{- end }}
          {{- include "quire-lib.containerEnv" (list . $v) | nindent 10 }}
          {{- if $v.probes.startup.enabled }}
          startupProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: {{ $v.probes.startup.periodSeconds }}
            failureThreshold: {{ $v.probes.startup.failureThreshold }}
            timeoutSeconds: {{ $v.probes.startup.timeoutSeconds }}
          {{- end }}
          livenessProbe:
            httpGet:
              path: /healthz
              port: http
            periodSeconds: {{ $v.probes.liveness.periodSeconds }}
            failureThreshold: {{ $v.probes.liveness.failureThreshold }}
            timeoutSeconds: {{ $v.probes.liveness.timeoutSeconds }}
          readinessProbe:
            httpGet:
              path: /readyz
              port: http
            periodSeconds: {{ $v.probes.readiness.periodSeconds }}
            failureThreshold: {{ $v.probes.readiness.failureThreshold }}
            timeoutSeconds: {{ $v.probes.readiness.timeoutSeconds }}
          {{- if gt (atoi $shutdown.preStopSeconds) 0 }}
          lifecycle:
            # Kubernetes takes the pod out of the Services and DNS while it still serves; SIGTERM after.
            preStop:
              exec:
                command: ["/bin/sh", "-c", "sleep {{ $shutdown.preStopSeconds }}"]
          {{- end }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          volumeMounts:
            - name: tmp
              mountPath: /tmp
            {{- with $v.extraVolumeMounts }}
            {{- toYaml . | nindent 12 }}
            {{- end }}
      volumes:
        - name: tmp
          emptyDir:
            {{- with $v.tmpSizeLimit }}
            sizeLimit: {{ . }}
            {{- end }}
        {{- with $v.extraVolumes }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with include "quire-lib.topologySpreadConstraints" (list $v (include "quire-lib.selectorLabels" .) (printf "%s." .Chart.Name)) }}
      topologySpreadConstraints:
        {{- . | trim | nindent 8 }}
      {{- end }}
{{- end -}}

{{/*
topologySpreadConstraints of a pod: topologySpreadConstraints when given (verbatim), else one
constraint per enabled entry of topologySpread (hostname: kubernetes.io/hostname, zone:
topology.kubernetes.io/zone) over the pods with the pod's own selector labels.
Arg: list values selectorLabelsYaml valuesPrefix (for messages, e.g. "identity.").
*/}}
{{- define "quire-lib.topologySpreadConstraints" -}}
{{- $v := index . 0 -}}
{{- $selector := index . 1 -}}
{{- $prefix := index . 2 -}}
{{- if $v.topologySpreadConstraints -}}
{{- toYaml $v.topologySpreadConstraints -}}
{{- else -}}
{{- range $name, $key := dict "hostname" "kubernetes.io/hostname" "zone" "topology.kubernetes.io/zone" -}}
{{- $c := index ($v.topologySpread | default dict) $name | default dict -}}
{{- if $c.enabled -}}
{{- $when := $c.whenUnsatisfiable | default "ScheduleAnyway" -}}
{{- if not (has $when (list "ScheduleAnyway" "DoNotSchedule")) -}}
{{- fail (printf "%stopologySpread.%s.whenUnsatisfiable must be ScheduleAnyway or DoNotSchedule" $prefix $name) -}}
{{- end }}
- maxSkew: {{ include "quire-lib.wholeNumber" (list (printf "%stopologySpread.%s.maxSkew" $prefix $name) $c.maxSkew 1) }}
  topologyKey: {{ $key }}
  whenUnsatisfiable: {{ $when }}
  labelSelector:
    matchLabels:
      {{- $selector | nindent 6 }}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "quire-lib.service" -}}
{{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
{{- $g := .Values.global | default dict -}}
{{- $isGateway := eq (include "quire-lib.isGateway" .) "true" -}}
{{- $type := ternary ($v.service.type | default "ClusterIP") "ClusterIP" $isGateway -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "quire-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.labels" . | nindent 4 }}
  {{- with $v.service.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  type: {{ $type }}
  {{- if and (eq $type "LoadBalancer") $v.service.loadBalancerSourceRanges }}
  loadBalancerSourceRanges:
    {{- toYaml $v.service.loadBalancerSourceRanges | nindent 4 }}
  {{- end }}
  {{- if and (has $type (list "LoadBalancer" "NodePort")) $v.service.externalTrafficPolicy }}
  externalTrafficPolicy: {{ $v.service.externalTrafficPolicy }}
  {{- end }}
  selector:
    {{- include "quire-lib.selectorLabels" . | nindent 4 }}
  ports:
    - name: http
      port: {{ ternary $v.service.port (include "quire-lib.httpPort" $) $isGateway }}
      targetPort: http
      protocol: TCP
    {{- if not $isGateway }}
    - name: grpc
      port: {{ (include "quire-lib.grpcPort" $) }}
      targetPort: grpc
      protocol: TCP
      appProtocol: kubernetes.io/h2c
    {{- end }}
{{- end -}}

{{/*
Backends only: a headless Service ("<release>-<service>-grpc", clusterIP None) with the gRPC port
alone. Its DNS name resolves to every ready pod, which <SERVICE>_GRPC_ADDR (dns:///...) gives the
clients: they balance calls over all pods (round_robin) instead of pinning one HTTP/2 connection
to one pod through a ClusterIP. Pods leave it when not ready (draining).
*/}}
{{- define "quire-lib.grpcService" -}}
{{- if ne (include "quire-lib.isGateway" .) "true" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "quire-lib.grpcServiceName" (list . .Chart.Name) }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.labels" . | nindent 4 }}
spec:
  type: ClusterIP
  clusterIP: None
  selector:
    {{- include "quire-lib.selectorLabels" . | nindent 4 }}
  ports:
    - name: grpc
      port: {{ (include "quire-lib.grpcPort" $) }}
      targetPort: grpc
      protocol: TCP
      appProtocol: kubernetes.io/h2c
{{- end -}}
{{- end -}}

{{- define "quire-lib.hpa" -}}
{{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
{{- $a := $v.autoscaling -}}
{{- if $a.enabled -}}
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: {{ include "quire-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.labels" . | nindent 4 }}
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: {{ include "quire-lib.fullname" . }}
  minReplicas: {{ $a.minReplicas }}
  maxReplicas: {{ $a.maxReplicas }}
  metrics:
    - type: Resource
      resource:
        name: cpu
        target:
          type: Utilization
          averageUtilization: {{ $a.targetCPUUtilizationPercentage }}
    {{- with $a.targetMemoryUtilizationPercentage }}
    - type: Resource
      resource:
        name: memory
        target:
          type: Utilization
          averageUtilization: {{ . }}
    {{- end }}
  {{- with $a.behavior }}
  behavior:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
{{- end -}}

{{/*
Rendered only when more than one replica is guaranteed (replicaCount, or autoscaling.minReplicas),
and checked so that it never blocks a node drain: maxUnavailable (default 1) at least 1, or
minAvailable, when set, below the replicas always running.
*/}}
{{- define "quire-lib.pdb" -}}
{{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
{{- $minReplicas := ternary $v.autoscaling.minReplicas $v.replicaCount (not (not $v.autoscaling.enabled)) -}}
{{- if and $v.podDisruptionBudget.enabled (gt (int $minReplicas) 1) -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "quire-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.labels" . | nindent 4 }}
spec:
  {{- include "quire-lib.pdbBudget" (list $v.podDisruptionBudget (int $minReplicas) (printf "%s.podDisruptionBudget" .Chart.Name)) | nindent 2 }}
  selector:
    matchLabels:
      {{- include "quire-lib.selectorLabels" . | nindent 6 }}
{{- end -}}
{{- end -}}

{{/*
The budget of a PodDisruptionBudget: minAvailable when set (a number below the replicas always
running, or a percentage below 100%), else maxUnavailable (default 1; at least 1 or 1%).
Arg: list podDisruptionBudgetValues guaranteedReplicas valuesName.
*/}}
{{- define "quire-lib.pdbBudget" -}}
{{- $pdb := index . 0 -}}
{{- $replicas := index . 1 -}}
{{- $name := index . 2 -}}
{{- $min := $pdb.minAvailable -}}
{{- if not (or (kindIs "invalid" $min) (eq (toString $min) "")) -}}
{{- if regexMatch "^[0-9]+%$" (toString $min) -}}
{{- if ge (atoi (trimSuffix "%" (toString $min))) 100 -}}
{{- fail (printf "%s.minAvailable %v would block node drains: use a percentage below 100%%, or maxUnavailable" $name $min) -}}
{{- end -}}
minAvailable: {{ toString $min | quote }}
{{- else -}}
{{- $n := include "quire-lib.wholeNumber" (list (printf "%s.minAvailable" $name) $min 1) -}}
{{- if ge (atoi $n) $replicas -}}
{{- fail (printf "%s.minAvailable (%s) must be below the replicas always running (%d), or the PDB blocks node drains: lower it, raise replicaCount / autoscaling.minReplicas, or use maxUnavailable" $name $n $replicas) -}}
{{- end -}}
minAvailable: {{ $n }}
{{- end -}}
{{- else -}}
{{- $max := $pdb.maxUnavailable -}}
{{- if regexMatch "^[0-9]+%$" (toString $max) -}}
{{- if lt (atoi (trimSuffix "%" (toString $max))) 1 -}}
{{- fail (printf "%s.maxUnavailable %v would block node drains" $name $max) -}}
{{- end -}}
maxUnavailable: {{ toString $max | quote }}
{{- else -}}
{{- $n := include "quire-lib.wholeNumber" (list (printf "%s.maxUnavailable" $name) $max 1) -}}
{{- if lt (atoi $n) 1 -}}
{{- fail (printf "%s.maxUnavailable must be at least 1, or the PDB blocks node drains" $name) -}}
{{- end -}}
maxUnavailable: {{ $n }}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
Backends: HTTP only from the gateway of this release; gRPC from the gateway and
from any Quire pod of this release (backends call each other over gRPC).
Gateway: HTTP from anywhere; its metrics port from metrics.allowFrom (empty: anywhere).
*/}}
{{- define "quire-lib.networkpolicy" -}}
{{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
{{- $g := .Values.global | default dict -}}
{{- if $v.networkPolicy.enabled -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "quire-lib.fullname" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.labels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "quire-lib.selectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
  ingress:
    {{- if eq (include "quire-lib.isGateway" .) "true" }}
    - ports:
        - protocol: TCP
          port: {{ (include "quire-lib.httpPort" $) }}
    {{- if and $v.metrics $v.metrics.enabled }}
    - ports:
        - protocol: TCP
          port: {{ $v.metrics.port }}
      {{- with $v.metrics.allowFrom }}
      from:
        {{- toYaml . | nindent 8 }}
      {{- end }}
    {{- end }}
    {{- else }}
    - from:
        - podSelector:
            matchLabels:
              app.kubernetes.io/name: gateway
              app.kubernetes.io/instance: {{ .Release.Name }}
      ports:
        - protocol: TCP
          port: {{ (include "quire-lib.httpPort" $) }}
        - protocol: TCP
          port: {{ (include "quire-lib.grpcPort" $) }}
    - from:
        - podSelector:
            matchLabels:
              app.kubernetes.io/part-of: quire
              app.kubernetes.io/instance: {{ .Release.Name }}
      ports:
        - protocol: TCP
          port: {{ (include "quire-lib.grpcPort" $) }}
    {{- end }}
    {{- with $v.networkPolicy.extraIngress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}
{{- end -}}

{{/* Gateway only. */}}
{{- define "quire-lib.ingress" -}}
{{- $v := dict -}}{{- include "quire-lib.values" (list . $v) -}}
{{- $ing := $v.ingress -}}
{{- if and $ing.enabled (eq (include "quire-lib.isGateway" .) "true") -}}
{{- $fullname := include "quire-lib.fullname" . -}}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ $fullname }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.labels" . | nindent 4 }}
  {{- with $ing.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  {{- with $ing.className }}
  ingressClassName: {{ . }}
  {{- end }}
  {{- with $ing.tls }}
  tls:
    {{- range . }}
    - hosts:
        {{- range .hosts }}
        - {{ . | quote }}
        {{- end }}
      {{- with .secretName }}
      secretName: {{ . }}
      {{- end }}
    {{- end }}
  {{- end }}
  rules:
    {{- range $ing.hosts }}
    - http:
        paths:
          {{- range (.paths | default (list (dict "path" "/" "pathType" "Prefix"))) }}
          - path: {{ .path | default "/" }}
            pathType: {{ .pathType | default "Prefix" }}
            backend:
              service:
                name: {{ $fullname }}
                port:
                  name: http
          {{- end }}
      {{- with .host }}
      host: {{ . | quote }}
      {{- end }}
    {{- end }}
    {{- with $ing.filesHost }}
    # The files host: signed downloads only (the gateway answers nothing else there either).
    - host: {{ . | quote }}
      http:
        paths:
          - path: /v1/public/content
            pathType: Prefix
            backend:
              service:
                name: {{ $fullname }}
                port:
                  name: http
    {{- end }}
{{- end -}}
{{- end -}}

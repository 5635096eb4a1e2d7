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
        # Roll the pods when shared configuration changes.
        checksum/global: {{ omit $g "serviceDefaults" | toJson | sha256sum }}
        {{- $annotations := deepCopy ($v.podAnnotations | default dict) }}
        {{- if and (eq $isGateway "true") $v.metrics $v.metrics.enabled }}
        {{- /* Where Prometheus scrapes the gateway: its metrics port, not the public one */}}
        {{- $_ := merge $annotations (dict "prometheus.io/scrape" "true" "prometheus.io/port" (toString $v.metrics.port) "prometheus.io/path" "/metrics") }}
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
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
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
      {{- with $v.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
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

{{/* Rendered only when more than one replica is guaranteed, so it never blocks node drains. */}}
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
  minAvailable: {{ $v.podDisruptionBudget.minAvailable }}
  selector:
    matchLabels:
      {{- include "quire-lib.selectorLabels" . | nindent 6 }}
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

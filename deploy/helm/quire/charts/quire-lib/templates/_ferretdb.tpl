{{/*
FerretDB deployed by the chart (global.ferretdb.enabled): a stateless Deployment speaking the
MongoDB protocol over the operator's PostgreSQL, a ClusterIP Service in front of it, a PDB, a
NetworkPolicy and, when the PostgreSQL URL is given as a value, a Secret holding it. Rendered by
the umbrella; the settings live under global because the backends read them too (MONGODB_URI,
QUIRE_FERRETDB_POSTGRES_URL).
*/}}

{{/* FerretDB's MongoDB port (container and Service). */}}
{{- define "quire-lib.ferretdbPort" -}}27017{{- end -}}

{{/* "<release>-ferretdb": the Deployment, Service, PDB, NetworkPolicy and Secret. */}}
{{- define "quire-lib.ferretdbName" -}}
{{- printf "%s-ferretdb" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* MONGODB_URI of the backends with FerretDB: its Service (each backend appends its database). */}}
{{- define "quire-lib.ferretdbUri" -}}
{{- printf "mongodb://%s.%s.svc.%s:%s" (include "quire-lib.ferretdbName" .) .Release.Namespace (include "quire-lib.clusterDomain" .) (include "quire-lib.ferretdbPort" .) -}}
{{- end -}}

{{/* Name/key of the Secret with the PostgreSQL URL. Arg: root context. Output: YAML {name, key}. */}}
{{- define "quire-lib.ferretdbPostgresSecretRef" -}}
{{- $pg := dig "ferretdb" "postgresql" dict (.Values.global | default dict) -}}
{{- if $pg.existingSecret -}}
name: {{ $pg.existingSecret }}
key: {{ $pg.existingSecretKey | default "url" }}
{{- else -}}
name: {{ include "quire-lib.ferretdbName" . }}
key: url
{{- end -}}
{{- end -}}

{{/* Selector labels of the FerretDB pods. */}}
{{- define "quire-lib.ferretdbSelectorLabels" -}}
app.kubernetes.io/name: ferretdb
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/*
Labels of the FerretDB objects. Its pods carry the selector labels and the component only: not
app.kubernetes.io/part-of=quire, which the backends' NetworkPolicies let reach their gRPC port.
*/}}
{{- define "quire-lib.ferretdbLabels" -}}
helm.sh/chart: {{ include "quire-lib.chartLabel" . }}
{{ include "quire-lib.ferretdbSelectorLabels" . }}
app.kubernetes.io/component: datastore
app.kubernetes.io/part-of: quire
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Checks of global.ferretdb when enabled (called by quire-lib.validate). Arg: root context. */}}
{{- define "quire-lib.ferretdbValidate" -}}
{{- $f := dig "ferretdb" dict (.Values.global | default dict) -}}
{{- $pg := $f.postgresql | default dict -}}
{{- if not (or $pg.existingSecret $pg.url) -}}
{{- fail "global.ferretdb.postgresql.url (e.g. postgres://user:pass@postgres:5432/ferretdb) or global.ferretdb.postgresql.existingSecret (a Secret with the URL under the key url) is required with global.ferretdb.enabled" -}}
{{- end -}}
{{- if and $pg.url (not $pg.existingSecret) (not (regexMatch "^postgres(ql)?://" $pg.url)) -}}
{{- fail "global.ferretdb.postgresql.url must start with postgres:// or postgresql://" -}}
{{- end -}}
{{- if not $f.image -}}
{{- fail "global.ferretdb.image is required (e.g. ghcr.io/ferretdb/ferretdb:1.24.2)" -}}
{{- end -}}
{{- if lt (atoi (include "quire-lib.wholeNumber" (list "global.ferretdb.replicaCount" $f.replicaCount 1))) 1 -}}
{{- fail "global.ferretdb.replicaCount must be at least 1" -}}
{{- end -}}
{{- $preStop := include "quire-lib.wholeNumber" (list "global.ferretdb.preStopSeconds" $f.preStopSeconds 0) -}}
{{- $grace := include "quire-lib.wholeNumber" (list "global.ferretdb.terminationGracePeriodSeconds" $f.terminationGracePeriodSeconds 30) -}}
{{- if le (atoi $grace) (atoi $preStop) -}}
{{- fail "global.ferretdb.terminationGracePeriodSeconds must be larger than global.ferretdb.preStopSeconds" -}}
{{- end -}}
{{- end -}}

{{- define "quire-lib.ferretdbSecret" -}}
{{- $f := dig "ferretdb" dict (.Values.global | default dict) -}}
{{- $pg := $f.postgresql | default dict -}}
{{- if and $f.enabled $pg.url (not $pg.existingSecret) -}}
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "quire-lib.ferretdbName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.ferretdbLabels" . | nindent 4 }}
type: Opaque
data:
  url: {{ $pg.url | b64enc | quote }}
{{- end -}}
{{- end -}}

{{- define "quire-lib.ferretdbDeployment" -}}
{{- $g := .Values.global | default dict -}}
{{- $f := $g.ferretdb | default dict -}}
{{- if $f.enabled -}}
{{- $preStop := include "quire-lib.wholeNumber" (list "global.ferretdb.preStopSeconds" $f.preStopSeconds 0) -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "quire-lib.ferretdbName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.ferretdbLabels" . | nindent 4 }}
spec:
  replicas: {{ include "quire-lib.wholeNumber" (list "global.ferretdb.replicaCount" $f.replicaCount 1) }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "quire-lib.ferretdbSelectorLabels" . | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxUnavailable: 0
      maxSurge: 1
  template:
    metadata:
      labels:
        {{- include "quire-lib.ferretdbSelectorLabels" . | nindent 8 }}
        app.kubernetes.io/component: datastore
      annotations:
        # Roll the pods when the settings (the PostgreSQL URL among them) change.
        checksum/ferretdb: {{ toJson $f | sha256sum }}
        {{- with $f.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      automountServiceAccountToken: false
      {{- with (dig "image" "pullSecrets" list $g) }}
      imagePullSecrets:
        {{- range . }}
        - name: {{ . }}
        {{- end }}
      {{- end }}
      securityContext:
        runAsNonRoot: true
        runAsUser: 1000
        runAsGroup: 1000
        fsGroup: 1000
        seccompProfile:
          type: RuntimeDefault
      terminationGracePeriodSeconds: {{ include "quire-lib.wholeNumber" (list "global.ferretdb.terminationGracePeriodSeconds" $f.terminationGracePeriodSeconds 30) }}
      containers:
        - name: ferretdb
          image: {{ $f.image | quote }}
          imagePullPolicy: {{ $f.imagePullPolicy | default "IfNotPresent" }}
          args:
            - --handler=postgresql
            - --telemetry=disable
            - --listen-addr=:{{ include "quire-lib.ferretdbPort" . }}
            - --state-dir=/state
            # Metrics, pprof and debug archives: kept inside the pod.
            - --debug-addr=127.0.0.1:8088
            {{- range $f.extraArgs }}
            - {{ . | quote }}
            {{- end }}
          env:
            {{- include "quire-lib.secretEnv" (list "FERRETDB_POSTGRESQL_URL" (include "quire-lib.ferretdbPostgresSecretRef" .) false) | nindent 12 }}
          securityContext:
            allowPrivilegeEscalation: false
            readOnlyRootFilesystem: true
            runAsNonRoot: true
            capabilities:
              drop: ["ALL"]
          ports:
            - name: mongodb
              containerPort: {{ include "quire-lib.ferretdbPort" . }}
              protocol: TCP
          readinessProbe:
            tcpSocket:
              port: mongodb
            periodSeconds: 5
            failureThreshold: 3
          livenessProbe:
            tcpSocket:
              port: mongodb
            initialDelaySeconds: 10
            periodSeconds: 10
            failureThreshold: 3
          {{- if gt (atoi $preStop) 0 }}
          lifecycle:
            # No /bin/sh in the image: the kubelet's own sleep handler (Kubernetes 1.30+).
            preStop:
              sleep:
                seconds: {{ $preStop }}
          {{- end }}
          resources:
            {{- toYaml ($f.resources | default dict) | nindent 12 }}
          volumeMounts:
            # state.json (instance id); the root filesystem is read-only.
            - name: state
              mountPath: /state
      volumes:
        - name: state
          emptyDir:
            sizeLimit: 16Mi
      {{- with $f.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $f.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $f.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with include "quire-lib.topologySpreadConstraints" (list $f (include "quire-lib.ferretdbSelectorLabels" .) "global.ferretdb.") }}
      topologySpreadConstraints:
        {{- . | trim | nindent 8 }}
      {{- end }}
{{- end -}}
{{- end -}}

{{- define "quire-lib.ferretdbService" -}}
{{- if dig "ferretdb" "enabled" false (.Values.global | default dict) -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ include "quire-lib.ferretdbName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.ferretdbLabels" . | nindent 4 }}
spec:
  type: ClusterIP
  selector:
    {{- include "quire-lib.ferretdbSelectorLabels" . | nindent 4 }}
  ports:
    - name: mongodb
      port: {{ include "quire-lib.ferretdbPort" . }}
      targetPort: mongodb
      protocol: TCP
{{- end -}}
{{- end -}}

{{/* Like the services' PDB: only with more than one replica, never blocking a node drain. */}}
{{- define "quire-lib.ferretdbPdb" -}}
{{- $f := dig "ferretdb" dict (.Values.global | default dict) -}}
{{- $pdb := $f.podDisruptionBudget | default dict -}}
{{- $replicas := atoi (include "quire-lib.wholeNumber" (list "global.ferretdb.replicaCount" $f.replicaCount 1)) -}}
{{- if and $f.enabled (dig "enabled" true $pdb) (gt $replicas 1) -}}
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: {{ include "quire-lib.ferretdbName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.ferretdbLabels" . | nindent 4 }}
spec:
  {{- include "quire-lib.pdbBudget" (list $pdb $replicas "global.ferretdb.podDisruptionBudget") | nindent 2 }}
  selector:
    matchLabels:
      {{- include "quire-lib.ferretdbSelectorLabels" . | nindent 6 }}
{{- end -}}
{{- end -}}

{{/* FerretDB's port only from the backends of this release (they alone use the datastore). */}}
{{- define "quire-lib.ferretdbNetworkpolicy" -}}
{{- $f := dig "ferretdb" dict (.Values.global | default dict) -}}
{{- $np := $f.networkPolicy | default dict -}}
{{- if and $f.enabled (dig "enabled" true $np) -}}
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: {{ include "quire-lib.ferretdbName" . }}
  namespace: {{ .Release.Namespace }}
  labels:
    {{- include "quire-lib.ferretdbLabels" . | nindent 4 }}
spec:
  podSelector:
    matchLabels:
      {{- include "quire-lib.ferretdbSelectorLabels" . | nindent 6 }}
  policyTypes:
    - Ingress
  ingress:
    - from:
        - podSelector:
            matchLabels:
              app.kubernetes.io/part-of: quire
              app.kubernetes.io/component: backend
              app.kubernetes.io/instance: {{ .Release.Name }}
      ports:
        - protocol: TCP
          port: {{ include "quire-lib.ferretdbPort" . }}
    {{- with $np.extraIngress }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}
{{- end -}}

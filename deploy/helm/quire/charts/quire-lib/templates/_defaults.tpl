{{/*
Baseline values of every Quire service. Precedence (last wins):
  1. these defaults
  2. umbrella values: global.serviceDefaults
  3. the service subchart's own values.yaml
  4. umbrella values: <service>:   (e.g. identity.resources)
Unlike Helm's own merge, false / 0 / "" at a later level do override.
*/}}
{{- define "quire-lib.defaults" -}}
# Replicas when autoscaling.enabled is false.
replicaCount: 2

image:
  # Full repository override; default "<global.image.repository>/<service>".
  repository: ""
  # Registry override; default global.image.registry.
  registry: ""
  # Tag override; default global.image.tag, then the chart appVersion.
  tag: ""
  # Pin by digest (sha256:...) instead of tag.
  digest: ""
  # Pull policy override; default global.image.pullPolicy.
  pullPolicy: ""

# LOG_LEVEL for this service only; default global.logLevel.
logLevel: ""

service:
  # Backends are always ClusterIP; only the gateway honours this.
  type: ClusterIP
  # Port of the gateway Service (backends use global.ports.http / global.ports.grpc).
  port: 8080
  annotations: {}
  # For type LoadBalancer.
  loadBalancerSourceRanges: []
  externalTrafficPolicy: ""

serviceAccount:
  create: true
  # Defaults to "<release>-<service>" when create is true, "default" otherwise.
  name: ""
  annotations: {}

resources:
  requests:
    cpu: 100m
    memory: 192Mi
  limits:
    cpu: "1"
    memory: 512Mi

autoscaling:
  enabled: true
  minReplicas: 2
  maxReplicas: 5
  targetCPUUtilizationPercentage: 70
  # Set (e.g. 80) to also scale on memory.
  targetMemoryUtilizationPercentage: null
  behavior: {}

# Rendered only when more than one replica is guaranteed (replicaCount, or autoscaling.minReplicas).
podDisruptionBudget:
  enabled: true
  # Pods a node drain may evict at once (at least 1).
  maxUnavailable: 1
  # Set (a number below the replicas always running, or a percentage) to use minAvailable instead.
  minAvailable: ""

networkPolicy:
  enabled: true
  # Extra NetworkPolicy ingress rules appended verbatim (e.g. to let a
  # Prometheus namespace scrape the pods).
  extraIngress: []

# Gateway only: the Ingress in front of it.
ingress:
  enabled: false
  className: ""
  annotations: {}
  hosts:
    - host: api.example.com
      paths:
        - path: /
          pathType: Prefix
  # The files host: only signed downloads are routed there (see the umbrella values.yaml).
  filesHost: files.example.com
  tls: []
  #  - secretName: quire-api-tls
  #    hosts: [api.example.com, files.example.com]

podSecurityContext:
  runAsNonRoot: true
  # uid/gid of the "node" user of the node:20 image (numeric, so the kubelet
  # can verify runAsNonRoot).
  runAsUser: 1000
  runAsGroup: 1000
  fsGroup: 1000
  seccompProfile:
    type: RuntimeDefault

securityContext:
  allowPrivilegeEscalation: false
  readOnlyRootFilesystem: true
  runAsNonRoot: true
  capabilities:
    drop: ["ALL"]

probes:
  startup:
    enabled: true
    periodSeconds: 2
    failureThreshold: 60
    timeoutSeconds: 2
  liveness:
    periodSeconds: 10
    failureThreshold: 3
    timeoutSeconds: 2
  readiness:
    periodSeconds: 5
    failureThreshold: 3
    timeoutSeconds: 2

# Size limit of the emptyDir mounted at /tmp (the root filesystem is read-only).
tmpSizeLimit: 256Mi

# Empty: global.shutdown.terminationGracePeriodSeconds. Either way it must be larger than
# global.shutdown.preStopSeconds + global.shutdown.drainMs / 1000 + 25 s (checked).
terminationGracePeriodSeconds: ""

# CACHE_BUDGET_MB of a backend: its in-process caches (estimated heap, MB), split among the caches
# its modules declare in proportion to their declared sizes. Empty: the service's default (the sum
# of those sizes). Each cache's fill, hits and misses are at GET /metrics on the service's HTTP port.
cacheBudgetMb: ""

# Extra environment variables (list of EnvVar) and envFrom sources.
extraEnv: []
extraEnvFrom: []
# Extra volumes / mounts, e.g. a writable data directory for the content service.
extraVolumes: []
extraVolumeMounts: []

podAnnotations: {}
podLabels: {}
nodeSelector: {}
tolerations: []
affinity: {}
# Spread of the service's pods (labelSelector: its own selector labels): one constraint per
# enabled entry, over kubernetes.io/hostname and topology.kubernetes.io/zone.
topologySpread:
  hostname:
    enabled: true
    maxSkew: 1
    whenUnsatisfiable: ScheduleAnyway
  zone:
    enabled: false
    maxSkew: 1
    whenUnsatisfiable: ScheduleAnyway
# A non-empty list is used verbatim instead of the constraints topologySpread makes.
topologySpreadConstraints: []
priorityClassName: ""
{{- end -}}

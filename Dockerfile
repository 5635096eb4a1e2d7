# syntax=docker/dockerfile:1
#
# One image recipe for every Quire service.
#
#   docker build --build-arg SERVICE=identity -t quire/identity:0.1.0 .
#
# SERVICE is one of: gateway identity content publishing integrations insights.
# The Helm chart (deploy/helm/quire) expects one image per service, named
# <global.image.repository>/<service>, e.g. quire/identity.

ARG NODE_IMAGE=node:20-bookworm-slim

# ---------------------------------------------------------------------------
# Stage 1: install all dependencies, compile every workspace, drop dev deps.
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
# No telemetry from turbo (or anything honouring DO_NOT_TRACK).
ENV CI=true \
    DO_NOT_TRACK=1 \
    TURBO_TELEMETRY_DISABLED=1 \
    NPM_CONFIG_AUDIT=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_UPDATE_NOTIFIER=false

# Use the npm version pinned in package.json's "packageManager" (npm@11.x).
COPY package.json ./
RUN npm_version="$(node -p "(require('./package.json').packageManager || 'npm@').split('@')[1] || ''")" \
 && if [ -n "$npm_version" ]; then npm install -g "npm@${npm_version}"; fi \
 && npm --version

COPY . .
RUN npm ci
# Builds every package to <pkg>/dist (the proto lib is generated with buf from npm).
RUN npm run build
# Keep production dependencies only.
RUN npm prune --omit=dev

# Collect exactly what the runtime needs, keeping the workspace layout:
# root package files + node_modules, and for every workspace in libs/ and
# services/: package.json, dist/ and a nested node_modules/ if npm made one.
RUN set -eu; \
    mkdir -p /out; \
    cp package.json package-lock.json /out/; \
    cp -a node_modules /out/node_modules; \
    for dir in libs/* services/*; do \
      [ -f "$dir/package.json" ] || continue; \
      mkdir -p "/out/$dir"; \
      cp "$dir/package.json" "/out/$dir/"; \
      if [ -d "$dir/dist" ]; then cp -a "$dir/dist" "/out/$dir/dist"; fi; \
      if [ -d "$dir/node_modules" ]; then cp -a "$dir/node_modules" "/out/$dir/node_modules"; fi; \
    done

# ---------------------------------------------------------------------------
# Stage 2: runtime.
# ---------------------------------------------------------------------------
FROM ${NODE_IMAGE} AS runtime
ARG SERVICE

# git: used by the content service (harmless for the others).
# tini: PID 1 that forwards signals and reaps child processes (e.g. git).
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates tini \
 && rm -rf /var/lib/apt/lists/*

# BIND_HOST: the services listen on 127.0.0.1 by default; a container must listen on all interfaces.
ENV NODE_ENV=production \
    SERVICE=${SERVICE} \
    BIND_HOST=0.0.0.0 \
    PORT=8080 \
    HTTP_PORT=8080 \
    GRPC_PORT=50051

WORKDIR /app
# Files stay owned by root (read-only for the runtime user).
COPY --from=build /out/ /app/

# Fail the build early if SERVICE is missing or unknown.
RUN test -n "${SERVICE}" || { echo "build arg SERVICE is required" >&2; exit 1; }; \
    test -f "/app/services/${SERVICE}/dist/main.js" || { echo "no services/${SERVICE}/dist/main.js" >&2; exit 1; }

USER node
EXPOSE 8080 50051 9464
ENTRYPOINT ["/usr/bin/tini", "--"]
# Shell form so ${SERVICE} (baked into ENV above) is expanded at start; exec
# replaces the shell so node receives signals from tini directly.
CMD ["/bin/sh", "-c", "exec node \"services/${SERVICE}/dist/main.js\""]

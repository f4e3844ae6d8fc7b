# The Flotilla image: `flotilla control-plane …` and `flotilla agent …` (the charts' command).
# With the default BASE, `docker build .` (or `podman build .`) works anywhere a registry is
# reachable; `npm run image` builds this same file on a machine without one, passing a local
# base (scripts/build-image.sh). BASE must provide Node.js 24 as `node` and /bin/sh; BUILD_BASE,
# the build stage's, also npm.
ARG BASE=docker.io/library/node:24-bookworm-slim
ARG BUILD_BASE=${BASE}

FROM ${BUILD_BASE} AS build
WORKDIR /src
COPY package.json package-lock.json ./
# The optional secret npm_ca is a CA bundle for registries behind a TLS-re-signing proxy.
# --ignore-scripts: the `node` dev dependency's install script would download a second Node.js.
RUN --mount=type=secret,id=npm_ca,required=false \
    if [ -s /run/secrets/npm_ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/npm_ca; fi; \
    npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json ./
COPY shared shared
COPY control-plane control-plane
COPY agent agent
COPY bin bin
COPY scripts/bundle.ts scripts/lean-client-node.ts scripts/lean-agent.ts scripts/build-dashboard.ts scripts/
# One esbuild bundle per process (scripts/bundle.ts): the agent's, and the rest of `flotilla`'s,
# with the CRDs, the dashboard and the bundled packages' licence notices beside them. The source
# maps stay in this stage: they are build artifacts, and production does not turn them on.
RUN node scripts/bundle.ts --out dist/bundle && rm dist/bundle/*.map
# `flotilla` on PATH (the charts' command), made here: the runtime base has no coreutils. exec keeps
# Node as PID 1: the command's own SIGTERM handlers stop it gracefully, and dist/entrypoint.mjs
# exits on a signal before they exist; no init is needed. FLOTILLA_NODE_ARGS (split on spaces)
# goes on node's command line: the flags NODE_OPTIONS refuses, such as --optimize-for-size.
RUN printf '#!/bin/sh\nexec node $FLOTILLA_NODE_ARGS /app/dist/entrypoint.mjs "$@"\n' > flotilla && chmod 755 flotilla

FROM ${BASE}
ENV NODE_ENV=production
WORKDIR /app
# No node_modules: the bundles hold what they use.
COPY --from=build /src/dist/bundle dist
COPY scripts/image-entrypoint.js dist/entrypoint.mjs
COPY --from=build /src/flotilla /usr/local/bin/flotilla
# Last, so a new revision rebuilds nothing.
ARG VERSION=0.0.0-dev
ARG REVISION=unknown
ARG SOURCE=https://github.com/flotilla/flotilla
LABEL org.opencontainers.image.title="flotilla" \
      org.opencontainers.image.description="Pull-mode multi-cluster Kubernetes: control plane and agent" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}"
# A numeric non-root user (no passwd entry needed), so runAsNonRoot can verify it. Nothing is
# written outside mounted volumes: the root filesystem may be read-only.
USER 65532:65532
ENTRYPOINT ["flotilla"]

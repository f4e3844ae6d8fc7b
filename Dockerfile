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
COPY scripts/build-dashboard.ts scripts/build-dashboard.ts
# tsc through the base's node (node_modules/.bin/node is the un-installed dev dependency), then
# what `npm run build` also copies (.dockerignore leaves the tests out). Source maps and
# type declarations of the dependencies are of no use at run time (15 MB); prune leaves the dev
# dependencies' scope directories behind, empty.
RUN node node_modules/typescript/bin/tsc -p tsconfig.json \
    && cp -r control-plane/crds dist/control-plane/crds \
    && node scripts/build-dashboard.ts --out dist/control-plane/dashboard/web-dist \
    && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
    && find node_modules \( -name '*.map' -o -name '*.d.ts' -o -name '*.d.mts' -o -name '*.d.cts' \) -type f -delete \
    && rm -rf node_modules/@types \
    && find node_modules -mindepth 1 -maxdepth 1 -type d -empty -delete

FROM ${BASE}
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules node_modules
COPY --from=build /src/dist/shared dist/shared
COPY --from=build /src/dist/control-plane dist/control-plane
COPY --from=build /src/dist/agent dist/agent
COPY --from=build /src/dist/bin dist/bin
COPY scripts/image-entrypoint.js dist/entrypoint.js
# `flotilla` on PATH (the charts' command). exec keeps Node as PID 1: the command's own SIGTERM
# handlers stop it gracefully, and dist/entrypoint.js exits on a signal before they exist; no init
# is needed.
RUN printf '#!/bin/sh\nexec node /app/dist/entrypoint.js "$@"\n' > /usr/local/bin/flotilla \
    && chmod 755 /usr/local/bin/flotilla
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

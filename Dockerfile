# syntax=docker/dockerfile:1
# engram, single container: the embedded engine (SQLite in DATA_DIR) and the local embedding model.
#   docker build -t engram . && docker run -p 8787:8787 -v engram-data:/data engram
# For Redis (STORE=redis) see docker-compose.yml; every setting is listed in .env.example.
#
# Three stages: `build` installs everything and builds the model, `deps` installs the production
# dependencies and prunes them to what the service loads (scripts/prune-runtime.sh), and the
# runtime stage copies only the model, those dependencies and the source onto the slim base.
ARG BUN_VERSION=1.4.5

FROM oven/bun:${BUN_VERSION} AS build
WORKDIR /app
COPY package.json bun.lock bunfig.toml ./
# Behind a TLS-intercepting proxy, pass its CA: --secret id=ca,src=/path/to/ca.pem (docs/deployment.md).
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
 && bun install --frozen-lockfile
COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts
# The built-in models named in MODELS, from their installed weight packages, no network: a container
# starts with the default (use-lite-128d, 13 MB) in about a second. The runtime stage has no weight
# packages (prune-runtime.sh), so it cannot build a model itself: for EMBEDDING_MODEL=glove-sif-100d
# (40 MB more) build with --build-arg MODELS="use-lite-128d glove-sif-100d".
ARG MODELS=use-lite-128d
RUN for model in ${MODELS}; do bun scripts/build-model.ts --model "$model" --cache-dir /app/.cache/models || exit 1; done

FROM oven/bun:${BUN_VERSION} AS deps
# Set by BuildKit and Podman (amd64, arm64); the prune script falls back to the build machine's arch.
ARG TARGETARCH
WORKDIR /app
COPY package.json bun.lock bunfig.toml ./
COPY scripts/prune-runtime.sh ./
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi \
 && bun install --frozen-lockfile --production \
 && sh prune-runtime.sh node_modules ${TARGETARCH}

FROM oven/bun:${BUN_VERSION}-slim
WORKDIR /app
# ORT_DISABLE_TELEMETRY: onnxruntime sends no usage data (src/embed/onnx-telemetry.ts sets it too).
ENV NODE_ENV=production \
    ORT_DISABLE_TELEMETRY=1 \
    MODEL_CACHE_DIR=/app/.cache/models \
    STORE=sqlite \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8787
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/.cache/models ./.cache/models
COPY package.json tsconfig.json ./
COPY src ./src
COPY scripts/start.ts scripts/migrate-store.ts scripts/migrate-store-checkpoint.ts ./scripts/
# The app and model stay root-owned (read-only to the service); only /data is the service's.
RUN mkdir -p /data && chown bun:bun /data
VOLUME ["/data"]
EXPOSE 8787
USER bun

# /health is 503 while the store is unreachable (docs/deployment.md: Health checks), so this fails then too.
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
  CMD ["bun", "-e", "fetch(`http://127.0.0.1:${process.env.PORT ?? 8787}/health`).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

CMD ["bun", "scripts/start.ts"]

# engram, single container: the embedded engine (SQLite in DATA_DIR) and the local embedding model.
#   docker build -t engram . && docker run -p 8787:8787 -v engram-data:/data engram
# For the Redis Stack data plane see docker-compose.yml (STORE=redis).
ARG BUN_VERSION=1.4.5
FROM oven/bun:${BUN_VERSION}

WORKDIR /app
ENV NODE_ENV=production \
    MODEL_CACHE_DIR=/app/.cache/models

# Dependencies first, so code changes do not invalidate this layer.
COPY package.json bun.lock bunfig.toml ./
RUN bun install --frozen-lockfile --production

COPY tsconfig.json ./
COPY src ./src
COPY scripts ./scripts

# The embedding model is built into the image (from the installed GloVe package, no network),
# so a container is ready in about a second instead of building it on first start.
RUN bun scripts/build-model.ts \
 && mkdir -p /data \
 && chown -R bun:bun /data /app/.cache

ENV STORE=sqlite \
    DATA_DIR=/data \
    HOST=0.0.0.0 \
    PORT=8787
VOLUME ["/data"]
EXPOSE 8787
USER bun

HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
  CMD ["bun", "-e", "fetch(`http://127.0.0.1:${process.env.PORT ?? 8787}/health`).then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]

CMD ["bun", "scripts/start.ts"]

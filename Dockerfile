# syntax=docker/dockerfile:1
#
# Mockyard image: build with dev dependencies, run with production dependencies only, as the
# unprivileged `node` user. One container = one process; run several against one PostgreSQL
# behind a load balancer (compose.yaml, docs/deploy.md).
#
#   docker build -t mockyard .
#   docker run -p 3000:3000 -e DATABASE_URL=postgres://user:pass@db:5432/mockyard mockyard
#   docker run -p 3000:3000 -v "$PWD/mocks:/mocks:ro" mockyard \
#     node bin/mockyard.mjs serve --file /mocks --host 0.0.0.0      # mocks as code (docs/testing.md)

ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm-slim AS base
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false

# better-sqlite3 is a native module: npm normally fetches a prebuilt binary, and compiles it with
# this toolchain when none matches. The toolchain stays out of the runtime image.
FROM base AS toolchain
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*

# Build: TypeScript → dist/, dashboard → web/dist/ (needs the dev dependencies).
FROM toolchain AS build
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
COPY web ./web
RUN node scripts/build.mjs

# Production dependencies only.
FROM toolchain AS prod-deps
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev

FROM base AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=3000 \
    DATABASE_URL=sqlite:/app/data/mockyard.db
# Code and modules belong to root and are read-only for the service user; only /app/data (the
# SQLite default) is writable. package.json is needed at run time ("type": "module", version).
COPY package.json ./
COPY bin ./bin
COPY --from=prod-deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/web/dist ./web/dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 3000
# Liveness only (/healthz answers without the database); load balancers should use /readyz.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# SIGTERM: stop accepting, finish in-flight requests (bounded), flush the request log, exit.
STOPSIGNAL SIGTERM
# --max-semi-space-size=4, MALLOC_ARENA_MAX=1 and MALLOC_TRIM_THRESHOLD_: see docs/deploy.md "Node flags"
ENV MALLOC_ARENA_MAX=1 MALLOC_TRIM_THRESHOLD_=131072
CMD ["node", "--max-semi-space-size=4", "dist/main.js"]

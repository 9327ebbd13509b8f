# syntax=docker/dockerfile:1
# The same steps CI runs (.ci/run) and `npm start` uses: npm ci from the lockfile,
# better-sqlite3 compiled from source, `npm run build` (scripts/build.mjs: one esbuild
# bundle, dist/main.js), then `node dist/main.js`.

# ---- build: compile TypeScript and better-sqlite3 ------------------------------------
FROM node:20-bookworm-slim AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
ENV npm_config_build_from_source=true \
    npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY scripts ./scripts
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev

# ---- runtime: production dependencies and the build output only ---------------------
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4010
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json /app/package-lock.json ./
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node fixtures ./fixtures
COPY --chown=node:node scenarios ./scenarios
USER node
EXPOSE 4010
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||4010)+'/__sandbox/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "dist/main.js"]

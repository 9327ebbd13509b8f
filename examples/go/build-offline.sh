#!/usr/bin/env bash
# Builds this example without the network, from Debian's Go packages
# (golang-golang-x-oauth2-dev, golang-github-getkin-kin-openapi-dev and what they pull in,
# all under /usr/share/gocode/src): a copy of the module whose vendor/ points into that
# tree, built in module mode with -mod=vendor. With the network, `go mod tidy && go run .`
# does the same from the module proxy.
#
#   examples/go/build-offline.sh OUT_BINARY
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(realpath -m "${1:?usage: build-offline.sh OUT_BINARY}")
src=${GOCODE_SRC:-/usr/share/gocode/src}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cp "$here"/*.go "$here"/go.mod "$work"/
mkdir -p "$work/vendor"
# For each module go.mod requires: "# path version" and "## explicit; go N" in
# vendor/modules.txt, and vendor/path -> Debian's source of that module.
awk '/^\t[^ ]+ v[0-9]/ { print $1, $2 }' "$here/go.mod" | while read -r mod ver; do
  if [ ! -d "$src/$mod" ]; then
    echo "build-offline: $src/$mod is missing (install Debian's package of $mod)" >&2
    exit 1
  fi
  gov=$(awk '$1 == "go" { print $2; exit }' "$src/$mod/go.mod" 2>/dev/null || true)
  printf '# %s %s\n## explicit%s\n' "$mod" "$ver" "${gov:+; go $gov}" >>"$work/vendor/modules.txt"
  mkdir -p "$work/vendor/$(dirname "$mod")"
  ln -s "$src/$mod" "$work/vendor/$mod"
done

cd "$work"
GOFLAGS=-mod=vendor GOPROXY=off go vet .
GOFLAGS=-mod=vendor GOPROXY=off go build -o "$out" .

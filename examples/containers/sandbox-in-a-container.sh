#!/usr/bin/env sh
# The sandbox from any language's test suite, Testcontainers-style: start the image with
# any container runner on a free port, wait for Docker's own health status, drive the
# control plane with plain HTTP, run the partner calls, remove the container. Only a
# container runner, curl and sed are needed; translate it line for line to Testcontainers
# in Java, .NET, Go or Python (GenericContainer + a wait-for-healthcheck strategy).
#
#   IMAGE=partnership-sandbox sh examples/containers/sandbox-in-a-container.sh
set -eu
IMAGE=${IMAGE:-partnership-sandbox}
DOCKER=${DOCKER:-docker}

cid=$($DOCKER run -d --rm -p 127.0.0.1::4010 "$IMAGE")
trap '$DOCKER rm -f "$cid" >/dev/null 2>&1 || true' EXIT INT TERM
port=$($DOCKER port "$cid" 4010/tcp | head -n 1 | sed 's/.*://')
B="http://127.0.0.1:$port"

# Healthy once GET /__sandbox/health answers (the image's HEALTHCHECK).
i=0
until [ "$($DOCKER inspect -f '{{.State.Health.Status}}' "$cid")" = healthy ]; do
  i=$((i + 1)); [ "$i" -lt 150 ] || { echo "not healthy after 30 s" >&2; exit 1; }
  sleep 0.2
done
echo "healthy on $B"

json() { curl -sS -H 'Content-Type: application/json' "$@"; }
field() { sed -E "s/.*\"$1\":\"?([^\",}]*)\"?.*/\1/"; }

# The control plane, plain HTTP: a partner of this test's own, seeded with a mapping.
partner=$(json -X POST "$B/__sandbox/partners" -d '{"client_secret":"containers-secret"}')
P=$(echo "$partner" | field parent_account_id)
CLIENT=$(echo "$partner" | field client_id)
json -X PUT "$B/__sandbox/partners/$P/vertical-mappings" -o /dev/null -d '{"vertical_mappings":[
  {"partner_vertical_id":10,"partner_vertical_name":"Retail","partner_sub_vertical_id":1001,"partner_sub_vertical_name":"Apparel","vertical_name":"Fashion"}]}'
echo "partner $P"

# The partner API: a token, a register, a controls read.
TOKEN=$(curl -sS -X POST "$B/oauth/token" -d grant_type=client_credentials \
  -d "client_id=$CLIENT" -d client_secret=containers-secret | field access_token)
AUTH="Authorization: Bearer $TOKEN"
account=$(json -X POST "$B/v1/accounts/register/partnership" -H "$AUTH" -H "X-Platform-Parent-Account-Id: $P" -d "{
  \"brand\":\"Acme\",\"vertical_id\":10,\"sub_vertical_id\":1001,\"country_code\":\"US\",
  \"platform_parent_account_id\":\"$P\",\"store_identifier\":\"https://acme.example.com\",
  \"external_account_id\":\"containers-1\"}" | field account_id)
echo "registered $account"
code=$(curl -sS -o /dev/null -w '%{http_code}' -H "$AUTH" -H "X-Platform-Parent-Account-Id: $P" \
  "$B/v1/partnership/accounts/$account/marketplacecontrolslists")
echo "controls GET $code"

# A failure drill armed on the control plane: the next call is 429 with Retry-After.
json -X PUT "$B/__sandbox/scenarios" -o /dev/null \
  -d "{\"scenario\":\"rate-limited\",\"value\":1,\"parent_account_id\":\"$P\",\"times\":1}"
first=$(curl -sS -o /dev/null -w '%{http_code}' -H "$AUTH" "$B/v1/partnership/vertical-mappings")
second=$(curl -sS -o /dev/null -w '%{http_code}' -H "$AUTH" "$B/v1/partnership/vertical-mappings")
echo "armed rate-limited: $first then $second"

# What the sandbox received, filtered to this partner.
echo "journal entries: $(curl -sS "$B/__sandbox/requests?parent_account_id=$P" | grep -o '"request_id"' | wc -l | tr -d ' ')"

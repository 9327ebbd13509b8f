"""A partner integration in Python against the partnership sandbox.

authlib (OAuth 2.0 client credentials) over httpx: register, the propagation retry of spec
section 5, the rule-5 recipe with its 409 retry, a dry run, status, the layout edit, then
the drills Python clients trip on: HTTP Basic without form-encoding, rate-limited
(Retry-After; httpx has no status retry), urllib3's Retry and a 503 without Retry-After,
a token refused after the clock moved (refresh), and connection-reset.

    SANDBOX_URL=http://127.0.0.1:4010 python3 partner.py

SANDBOX_ADMIN_TOKEN: the control-plane token, when the sandbox has one.
SANDBOX_WAIT=clock: waits between propagation retries move the sandbox clock instead of
sleeping (a test run); the default sleeps for real, as a client would.

Every answer is decoded strictly into dataclasses typed from the spec's tables: a field
the spec does not name, or a missing one, is an error. Each step prints one line; the
first failure prints "FAIL: ..." and exits 1.
"""

from __future__ import annotations

import base64
import dataclasses
import os
import sys
import time
import typing
import uuid
from dataclasses import dataclass, field
from urllib.parse import quote

import httpx
import requests
from authlib.common.encoding import to_bytes, to_native
from authlib.integrations.base_client.errors import OAuthError
from authlib.integrations.httpx_client import OAuth2Client
from requests.adapters import HTTPAdapter
from urllib3.util.retry import Retry

PROPAGATION_RETRY_EVERY = 20  # spec 5.5: every 15 to 30 seconds
PROPAGATION_GIVE_UP = 120  # spec 5.5: for up to two minutes
# A secret with characters RFC 6749 section 2.3.1 form-encodes before HTTP Basic.
PARTNER_SECRET = "py+secret/42"


# --- the spec's tables (sections 1 and 2) -------------------------------------------------


@dataclass
class APIError:
    code: str
    details: typing.Optional[dict] = None


@dataclass
class Envelope:
    status: int
    error: typing.Optional[APIError]
    message: str
    request_id: str
    data: typing.Any
    dry_run: typing.Optional[bool] = None  # only on dry runs


@dataclass
class VerticalMapping:
    partner_vertical_id: int
    partner_vertical_name: str
    partner_sub_vertical_id: int
    partner_sub_vertical_name: str
    vertical_name: str
    created_at: str


@dataclass
class MappingsData:
    vertical_mappings: typing.List[VerticalMapping]


@dataclass
class RegisteredPage:
    surface: str
    page_id: str
    layout_id: str
    page_identifier: str


@dataclass
class RegisterData:
    account_id: str
    pages: typing.List[RegisteredPage] = field(default_factory=list)


@dataclass
class DomainRule:
    domain: str
    policy: str


@dataclass
class ControlsList:
    marketplace_controls_list_id: str
    domains: typing.List[DomainRule]
    content_hash: str


@dataclass
class TranslatedVertical:
    vertical_id: int  # the partner's SUB-vertical ID
    policy: str
    position_1_policy: str


@dataclass
class ControlsData:
    account_id: str
    marketplace_controls_list: ControlsList
    translated_verticals: typing.List[TranslatedVertical]


@dataclass
class Variant:
    page_id: str
    name: str
    status: str


@dataclass
class StatusData:
    account_id: str
    status: str
    variants: typing.List[Variant]


@dataclass
class LayoutData:  # endpoint 7: the spec shows none; the sandbox answers the layout fields the spec names
    layout_id: str
    page_id: str
    surface: str
    layout_type: str


class StrictDecodingError(ValueError):
    pass


def strict(tp, value, where="$"):
    """Builds tp from decoded JSON, refusing unknown fields, missing ones and wrong types."""
    origin = typing.get_origin(tp)
    if origin is typing.Union:  # Optional[X]
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        return None if value is None else strict(args[0], value, where)
    if origin in (list, typing.List):
        if not isinstance(value, list):
            raise StrictDecodingError(f"{where}: expected an array")
        return [strict(typing.get_args(tp)[0], v, f"{where}[{i}]") for i, v in enumerate(value)]
    if dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise StrictDecodingError(f"{where}: expected an object")
        hints = typing.get_type_hints(tp)
        fields = {f.name: f for f in dataclasses.fields(tp)}
        unknown = sorted(set(value) - set(fields))
        if unknown:
            raise StrictDecodingError(f"{where}: unknown field(s) {', '.join(unknown)}")
        missing = [
            n
            for n, f in fields.items()
            if n not in value and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        ]
        if missing:
            raise StrictDecodingError(f"{where}: missing field(s) {', '.join(missing)}")
        return tp(**{n: strict(hints[n], v, f"{where}.{n}") for n, v in value.items()})
    if tp is typing.Any or tp is dict:
        return value
    if tp is int and (not isinstance(value, int) or isinstance(value, bool)):
        raise StrictDecodingError(f"{where}: expected an integer")
    if tp in (str, bool) and not isinstance(value, tp):
        raise StrictDecodingError(f"{where}: expected {tp.__name__}")
    return value


def envelope(res: httpx.Response, data_type, dry_run=False) -> Envelope:
    body = res.json()
    if isinstance(body, dict):
        absent = [k for k in ("status", "error", "message", "request_id", "data") if k not in body]
        if absent:
            raise StrictDecodingError(f"envelope field(s) missing: {', '.join(absent)}")
    env = strict(Envelope, body)
    if (env.dry_run is not None) != dry_run or env.dry_run is False:
        raise StrictDecodingError(f"dry_run is {env.dry_run!r} on a call sent with dry_run={dry_run}")
    if env.status != res.status_code:
        raise StrictDecodingError(f"envelope status {env.status} on HTTP {res.status_code}")
    if env.data is not None:
        env.data = strict(data_type, env.data, "$.data")
    return env


# --- the control plane: plain HTTP ---------------------------------------------------------


class ControlPlane:
    def __init__(self, base: str, admin_token: str | None):
        headers = {"Authorization": f"Bearer {admin_token}"} if admin_token else {}
        self.http = httpx.Client(base_url=base, headers=headers, timeout=10)

    def call(self, method: str, path: str, body=None, ok_404=False):
        res = self.http.request(method, path, json=body)
        if ok_404 and res.status_code == 404:
            return None
        if res.status_code >= 300:
            raise RuntimeError(f"{method} {path}: {res.status_code} {res.text}")
        return res.json()

    def create_partner(self, secret: str) -> dict:
        return self.call("POST", "/__sandbox/partners", {"client_secret": secret})

    def seed_taxonomy(self, parent: str) -> None:
        rows = [
            (10, "Apparel & Accessories", 1001, "Women's Clothing", "Apparel > Womenswear"),
            (10, "Apparel & Accessories", 1002, "Men's Clothing", "Apparel > Menswear"),
            (20, "Health & Beauty", 2001, "Skincare", "Beauty > Skincare"),
            (20, "Health & Beauty", 2002, "Vitamins & Supplements", "Health > Dietary Supplements"),
            (40, "Games & Gambling", 4002, "Online Casino", "Gambling > Casino"),
            (40, "Games & Gambling", 4003, "Sports Betting", "Gambling > Sports Betting"),
        ]
        keys = ("partner_vertical_id", "partner_vertical_name", "partner_sub_vertical_id")
        keys += ("partner_sub_vertical_name", "vertical_name")
        body = {"vertical_mappings": [dict(zip(keys, r)) for r in rows]}
        self.call("PUT", f"/__sandbox/partners/{parent}/vertical-mappings", body)

    def arm(self, account_id: str, scenario: str, value=None, times=1) -> None:
        body = {"scenario": scenario, "account_id": account_id, "times": times}
        if value is not None:
            body["value"] = value
        self.call("PUT", "/__sandbox/scenarios", body)

    def advance_clock(self, parent: str, seconds: int) -> None:
        """This partner's clock (docs/parallel-tests.md); the global one where that is absent."""
        if self.call("POST", f"/__sandbox/partners/{parent}/clock/advance", {"seconds": seconds}, ok_404=True) is None:
            self.call("POST", "/__sandbox/clock/advance", {"seconds": seconds})


# --- client authentication at the token endpoint -------------------------------------------


def client_secret_basic_form_encoded(auth, method, uri, headers, body):
    """HTTP Basic as RFC 6749 section 2.3.1 says: form-encode client_id and client_secret
    first (authlib's client_secret_basic and requests' HTTPBasicAuth send them raw)."""
    text = f"{quote(auth.client_id, safe='')}:{quote(auth.client_secret, safe='')}"
    headers["Authorization"] = "Basic " + to_native(base64.b64encode(to_bytes(text, "latin1")))
    return uri, headers, body


def oauth_client(base: str, partner: dict, method: str) -> OAuth2Client:
    client = OAuth2Client(
        partner["client_id"],
        partner["client_secret"],
        token_endpoint=f"{base}/oauth/token",
        grant_type="client_credentials",  # authlib re-fetches when ITS clock says expired
        token_endpoint_auth_method=method,
        base_url=base,
        timeout=30,
    )
    client.register_client_auth_method(("client_secret_basic_form_encoded", client_secret_basic_form_encoded))
    return client


def token_error(base: str, partner: dict, method: str) -> str:
    try:
        oauth_client(base, partner, method).fetch_token()
        return "200"
    except OAuthError as e:
        return f"{e.error}: {e.description}"


# --- the partner's API client -------------------------------------------------------------


class Api:
    def __init__(self, base: str, partner: dict):
        self.base = base
        self.partner = partner
        self.parent = partner["parent_account_id"]
        self.client = oauth_client(base, partner, "client_secret_basic_form_encoded")
        self.client.fetch_token()
        self.proven = False  # the current token has had a 2xx answer
        self.refreshes = 0
        self.waited: list[float] = []

    def call(self, method, path, data_type, body=None, key=None, scenario=None, dry_run=False):
        headers = {"X-Platform-Parent-Account-Id": self.parent}
        if key:
            headers["Idempotency-Key"] = key
        if scenario:
            headers["X-Sandbox-Scenario"] = scenario
        params = {"dry_run": "true"} if dry_run else None
        for attempt in range(4):
            res = self.client.request(method, path, json=body, headers=headers, params=params)
            # authlib decides expiry from its own clock. A 401 invalid_token on a token that
            # has worked before means the service no longer accepts it: fetch one, retry once.
            # (A new account's propagation 401s carry invalid_token too; a token that never
            # worked is not refreshed again.)
            if self.refused(res) and self.proven:
                self.client.fetch_token()
                self.proven = False
                self.refreshes += 1
                res = self.client.request(method, path, json=body, headers=headers, params=params)
            if res.status_code < 300:
                self.proven = True
            # httpx retries no status: honour Retry-After on 429/503 here (the same key: a
            # refused call was not executed).
            wait = retry_after(res)
            if wait is not None and attempt < 3:
                self.waited.append(wait)
                time.sleep(wait)
                continue
            return res.status_code, envelope(res, data_type, dry_run)
        raise AssertionError("unreachable")

    @staticmethod
    def refused(res: httpx.Response) -> bool:
        return res.status_code == 401 and 'error="invalid_token"' in res.headers.get("WWW-Authenticate", "")


def retry_after(res) -> float | None:
    if res.status_code not in (429, 503):
        return None
    value = res.headers.get("Retry-After", "")
    return min(float(value), 30.0) if value.isdigit() else None


# --- the flow -----------------------------------------------------------------------------


def add_blocked_vertical(api: Api, path: str, parent_of: dict, add: dict):
    """Spec rule 5: GET, rebuild the body from the Block entries (each sub-vertical mapped
    back to its vertical), add one, keep the domains, pass content_hash back, PUT; on 409
    re-read and re-apply (the same key may be reused after a 409)."""
    key = str(uuid.uuid4())
    conflicts = 0
    for attempt in range(3):
        _, current = api.call("GET", path, ControlsData)
        lst = current.data
        blocked = [
            {"partnerVerticalId": parent_of[v.vertical_id], "partnerSubVerticalId": v.vertical_id}
            | {"policy": "Block", "position1Policy": "Block"}
            for v in lst.translated_verticals
            if v.policy == "Block" and v.vertical_id != add["partnerSubVerticalId"]
        ]
        body = {
            "blockedVerticals": blocked + [add | {"policy": "Block", "position1Policy": "Block"}],
            "domains": [{"domain": d.domain, "policy": d.policy} for d in lst.marketplace_controls_list.domains],
            "contentHash": lst.marketplace_controls_list.content_hash,
        }
        scenario = "stale-content-hash" if attempt == 0 else None  # drill: a concurrent writer wins
        status, res = api.call("PUT", path, ControlsData, body, key=key, scenario=scenario)
        if status == 409 and res.error.code == "content_hash_mismatch":
            conflicts += 1
            continue
        if res.data is None:
            raise RuntimeError(f"controls PUT: {status} {res.error}")
        return conflicts, sorted(v.vertical_id for v in res.data.translated_verticals if v.policy == "Block")
    raise RuntimeError("controls PUT kept conflicting")


def main() -> None:
    base = os.environ.get("SANDBOX_URL", "http://127.0.0.1:4010").rstrip("/")
    cp = ControlPlane(base, os.environ.get("SANDBOX_ADMIN_TOKEN"))

    # Tenants of our own: drills, clock moves and the journal stay ours.
    partner = cp.create_partner(PARTNER_SECRET)
    cp.seed_taxonomy(partner["parent_account_id"])
    parent = partner["parent_account_id"]
    print(f"partner: {parent} created and seeded on the control plane")

    def wait(seconds: int) -> None:
        if os.environ.get("SANDBOX_WAIT") == "clock":
            cp.advance_clock(parent, seconds)
        else:
            time.sleep(seconds)

    # HTTP Basic: authlib's default sends the secret without RFC 6749's form-encoding.
    print(f"basic auth, authlib client_secret_basic, secret {PARTNER_SECRET!r}: {token_error(base, partner, 'client_secret_basic')}")
    odd = cp.create_partner("s3cr%t+/:x")
    print(f"basic auth, authlib client_secret_basic, secret 's3cr%t+/:x': {token_error(base, odd, 'client_secret_basic')}")
    print(f"basic auth, form-encoded first: {token_error(base, partner, 'client_secret_basic_form_encoded')}")
    print(f"client_secret_post: {token_error(base, partner, 'client_secret_post')}")

    api = Api(base, partner)
    token = api.client.token
    print(f"token: {token['token_type']}, expires in {token['expires_in']} s by authlib's clock")

    _, mappings = api.call("GET", "/v1/partnership/vertical-mappings", MappingsData)
    parent_of = {m.partner_sub_vertical_id: m.partner_vertical_id for m in mappings.data.vertical_mappings}
    print(f"mappings: {len(parent_of)} sub-verticals")

    register = {
        "brand": "Python Provisions",
        "vertical_id": 10,
        "sub_vertical_id": 1001,
        "country_code": "US",
        "platform_parent_account_id": parent,
        "store_identifier": "https://python.example.com",
        "external_account_id": f"py-{uuid.uuid4()}",
    }
    path = "/v1/accounts/register/partnership"
    _, first = api.call("POST", path, RegisterData, register, scenario="auth-propagation=60")
    account = first.data.account_id
    _, again = api.call("POST", path, RegisterData, register)
    if again.data.account_id != account:
        raise RuntimeError("the same external_account_id registered a second account")
    print(f"register: {account}, {len(first.data.pages)} pages; the same external_account_id again matched it")

    # Spec 5.5: a new account's calls answer 401 or 403 for up to two minutes.
    controls = f"/v1/partnership/accounts/{account}/marketplacecontrolslists"
    seen, waited = [], 0
    while True:
        status, res = api.call("GET", controls, ControlsData)
        if status not in (401, 403):
            break
        seen.append(str(status))
        if waited >= PROPAGATION_GIVE_UP:
            raise RuntimeError(f"authentication never propagated to {account}")
        wait(PROPAGATION_RETRY_EVERY)
        waited += PROPAGATION_RETRY_EVERY
    print(f"propagation: {', '.join(seen)}, then {status} (retried every {PROPAGATION_RETRY_EVERY} s)")

    conflicts, blocked = add_blocked_vertical(api, controls, parent_of, {"partnerVerticalId": 20, "partnerSubVerticalId": 2002})
    print(f"rule 5: blocked {blocked} after {conflicts} conflict (409 content_hash_mismatch: re-read, re-applied, same Idempotency-Key)")

    status_path = f"/v1/partnership/accounts/{account}/status"
    _, dry = api.call("PUT", status_path, StatusData, {"status": "paused"}, key=str(uuid.uuid4()), dry_run=True)
    _, now = api.call("GET", status_path, StatusData)
    _, paused = api.call("PUT", status_path, StatusData, {"status": "paused"}, key=str(uuid.uuid4()))
    print(f"status: dry run showed {dry.data.status} while the account stayed {now.data.status}; then {paused.data.status} ({len(paused.data.variants)} variants)")

    layout_path = f"/v1/partnership/accounts/{account}/layouts/{first.data.pages[0].layout_id}"
    _, layout = api.call("PATCH", layout_path, LayoutData, {"layout_type": "Embedded"}, key=str(uuid.uuid4()))
    print(f"layout: {layout.data.layout_id} is {layout.data.layout_type}")

    # Drill: rate-limited, armed on the control plane; Retry-After honoured, then 200.
    cp.arm(account, "rate-limited", 1)
    start = time.monotonic()
    status, _ = api.call("GET", status_path, StatusData)
    if status != 200 or len(api.waited) != 1:
        raise RuntimeError(f"rate-limited drill: {status}, waits {api.waited}")
    print(f"rate-limited: 429 with Retry-After: {api.waited[0]:.0f}, waited {time.monotonic() - start:.1f} s, then {status}")

    # urllib3's Retry: a 503 without Retry-After is retried only when listed in status_forcelist.
    bearer = {"Authorization": f"Bearer {api.client.token['access_token']}", "X-Platform-Parent-Account-Id": parent}
    outcomes = []
    for forcelist in ((), (503,)):
        session = requests.Session()
        retry = Retry(total=2, backoff_factor=0, status_forcelist=forcelist, raise_on_status=False)
        session.mount("http://", HTTPAdapter(max_retries=retry))
        cp.arm(account, "server-error", 503)
        outcomes.append(str(session.get(base + status_path, headers=bearer, timeout=10).status_code))
    print(f"urllib3 Retry on a 503 without Retry-After: {outcomes[0]} by default, {outcomes[1]} with status_forcelist=[503]")

    # Drill: the sandbox clock passes the token's expiry; authlib still holds it as valid.
    cp.advance_clock(parent, int(api.client.token["expires_in"]) + 60)
    before = api.refreshes
    status, _ = api.call("GET", status_path, StatusData)
    if status != 200 or api.refreshes != before + 1:
        raise RuntimeError(f"token refresh: {status}, refreshes {api.refreshes - before}")
    print("token refresh: the clock moved past expires_in; 401 invalid_token, new token, retried: 200")

    # Drill: connection-reset. httpx does not retry; the caller sees the reset.
    cp.arm(account, "connection-reset")
    try:
        api.call("GET", status_path, StatusData)
        raise RuntimeError("connection-reset: the call succeeded")
    except httpx.TransportError as e:
        print(f"connection-reset: httpx raised {type(e).__name__}: {e}")


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # noqa: BLE001 - one line for the test runner
        print(f"FAIL: {type(e).__name__}: {e}")
        sys.exit(1)
    print("done")

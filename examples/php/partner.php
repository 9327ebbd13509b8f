<?php
/*
 * A partner integration in PHP against the partnership sandbox, with Debian's libraries:
 * Guzzle 7 (php-guzzlehttp-guzzle) over libcurl (php-curl).
 *
 *   SANDBOX_URL=http://127.0.0.1:4010 php partner.php
 *
 * SANDBOX_ADMIN_TOKEN: the control-plane token, when the sandbox has one.
 * SANDBOX_WAIT=clock: waits between propagation retries move the sandbox clock instead of
 * sleeping (a test run); the default sleeps for real, as a client would.
 *
 * The tour (token, mappings, register, the propagation retry of spec 5.5, the rule-5 recipe
 * with its 409 retry, a dry run, status), the partial failure, the Basic-auth trap of
 * RFC 6749 2.3.1, what a reset looks like (and libcurl's own resend), and a chaos run that
 * converges. Each step prints one line; the first failure prints "FAIL: ..." and exits 1.
 */

declare(strict_types=1);

require_once 'GuzzleHttp/autoload.php';

use GuzzleHttp\Client;
use GuzzleHttp\Exception\ConnectException;
use GuzzleHttp\Exception\RequestException;
use Psr\Http\Message\ResponseInterface;

const PROPAGATION_RETRY_EVERY = 20; // spec 5.5: every 15 to 30 seconds
const PROPAGATION_GIVE_UP = 120;    // spec 5.5: for up to two minutes
// A secret with characters RFC 6749 section 2.3.1 form-encodes before HTTP Basic.
const PARTNER_SECRET = 'php+secret/42';

// --- typed envelopes: the spec's fields, anything else ignored, error.code read ----------

final class ApiError
{
    public function __construct(public readonly string $code, public readonly ?array $details) {}
}

final class Envelope
{
    public function __construct(
        public readonly int $httpStatus,
        public readonly int $status,
        public readonly ?ApiError $error,
        public readonly string $message,
        public readonly string $requestId,
        public readonly ?array $data,
        public readonly ?bool $dryRun,
    ) {}

    /** The spec's fields, by name; any other field (one the service adds later) is ignored. */
    public static function of(ResponseInterface $res): self
    {
        $body = json_decode((string) $res->getBody(), true, 512, JSON_THROW_ON_ERROR);
        $error = isset($body['error']) ? new ApiError($body['error']['code'], $body['error']['details'] ?? null) : null;
        $env = new self($res->getStatusCode(), $body['status'], $error, $body['message'], $body['request_id'], $body['data'], $body['dry_run'] ?? null);
        if ($env->status !== $env->httpStatus) {
            throw new RuntimeException("envelope status {$env->status} on HTTP {$env->httpStatus}");
        }
        return $env;
    }

    public function code(): ?string
    {
        return $this->error?->code;
    }
}

// --- the control plane: plain HTTP ---------------------------------------------------------

final class ControlPlane
{
    private Client $http;

    public function __construct(string $base, ?string $adminToken)
    {
        $headers = $adminToken ? ['Authorization' => "Bearer $adminToken"] : [];
        $this->http = new Client(['base_uri' => $base, 'http_errors' => false, 'headers' => $headers, 'timeout' => 10]);
    }

    public function call(string $method, string $path, ?array $body = null, bool $ok404 = false): ?array
    {
        $res = $this->http->request($method, $path, $body === null ? [] : ['json' => $body]);
        if ($ok404 && $res->getStatusCode() === 404) {
            return null;
        }
        if ($res->getStatusCode() >= 300) {
            throw new RuntimeException("$method $path: {$res->getStatusCode()} {$res->getBody()}");
        }
        return json_decode((string) $res->getBody(), true) ?? [];
    }

    public function seedTaxonomy(string $parent): void
    {
        $rows = [
            [10, 'Apparel & Accessories', 1001, "Women's Clothing", 'Apparel > Womenswear'],
            [10, 'Apparel & Accessories', 1002, "Men's Clothing", 'Apparel > Menswear'],
            [20, 'Health & Beauty', 2001, 'Skincare', 'Beauty > Skincare'],
            [20, 'Health & Beauty', 2002, 'Vitamins & Supplements', 'Health > Dietary Supplements'],
            [40, 'Games & Gambling', 4002, 'Online Casino', 'Gambling > Casino'],
            [40, 'Games & Gambling', 4003, 'Sports Betting', 'Gambling > Sports Betting'],
        ];
        $keys = ['partner_vertical_id', 'partner_vertical_name', 'partner_sub_vertical_id', 'partner_sub_vertical_name', 'vertical_name'];
        $mappings = array_map(fn ($r) => array_combine($keys, $r), $rows);
        $this->call('PUT', "/__sandbox/partners/$parent/vertical-mappings", ['vertical_mappings' => $mappings]);
    }

    public function arm(string $accountId, string $scenario): void
    {
        $this->call('PUT', '/__sandbox/scenarios', ['scenario' => $scenario, 'account_id' => $accountId, 'times' => 1]);
    }

    /** This partner's clock (docs/parallel-tests.md); the global one where that is absent. */
    public function advanceClock(string $parent, int $seconds): void
    {
        if ($this->call('POST', "/__sandbox/partners/$parent/clock/advance", ['seconds' => $seconds], true) === null) {
            $this->call('POST', '/__sandbox/clock/advance', ['seconds' => $seconds]);
        }
    }
}

// --- tokens --------------------------------------------------------------------------------

/** A token request; answers "200" or the RFC 6749 error and its description. */
function tokenOutcome(string $base, array $options): string
{
    $res = (new Client(['base_uri' => $base, 'http_errors' => false]))->post('/oauth/token', $options);
    $body = json_decode((string) $res->getBody(), true);
    return $res->getStatusCode() === 200 ? '200' : "{$body['error']}: {$body['error_description']}";
}

/** HTTP Basic as RFC 6749 2.3.1 says: client_id and client_secret form-encoded first. */
function formEncodedBasic(array $partner): string
{
    return 'Basic ' . base64_encode(urlencode($partner['client_id']) . ':' . urlencode($partner['client_secret']));
}

// --- the partner's API client --------------------------------------------------------------

final class Api
{
    public array $waits = [];
    private Client $http;
    private string $token;
    public int $tokenExpiresIn;

    /** @param callable(int):void $wait */
    public function __construct(private string $base, private array $partner, private $wait)
    {
        // CURLOPT_FORBID_REUSE: a connection per request. On a reused connection libcurl
        // resends a request that met a reset, a POST included, and this code never sees it.
        $this->http = new Client([
            'base_uri' => $base,
            'http_errors' => false,
            'timeout' => 30,
            'curl' => [CURLOPT_FORBID_REUSE => true],
        ]);
        $this->fetchToken();
    }

    public function parent(): string
    {
        return $this->partner['parent_account_id'];
    }

    public function token(): string
    {
        return $this->token;
    }

    public function fetchToken(): void
    {
        // client_secret_post: no Basic-auth encoding to get wrong.
        $res = $this->http->post('/oauth/token', ['form_params' => [
            'grant_type' => 'client_credentials',
            'client_id' => $this->partner['client_id'],
            'client_secret' => $this->partner['client_secret'],
        ]]);
        $body = json_decode((string) $res->getBody(), true);
        if ($res->getStatusCode() !== 200) {
            throw new RuntimeException("token: {$res->getStatusCode()} {$body['error']}");
        }
        $this->token = $body['access_token'];
        $this->tokenExpiresIn = $body['expires_in'];
    }

    /**
     * One call, retried as the spec and the sandbox's documents advise: 429 after Retry-After,
     * a 5xx or a reset after a short back-off (the same Idempotency-Key: a failed call applied
     * nothing), a new token when it expired, the propagation 401/403 every 20 s. A 409 or any
     * other error is the caller's.
     */
    public function call(string $method, string $path, ?array $body = null, ?string $key = null, ?string $scenario = null, bool $dryRun = false): Envelope
    {
        for ($attempt = 0; $attempt < 12; $attempt++) {
            try {
                $res = $this->send($method, $path, $body, $key, $scenario, $dryRun);
            } catch (RequestException $e) {
                // A reset is a RequestException (cURL error 56), not a ConnectException: a retry
                // policy that only retries ConnectException misses it.
                if ($e->hasResponse()) {
                    throw $e;
                }
                usleep(200_000); // a deliberate retry backs off (a library's resend comes within 100 ms)
                continue;
            }
            $env = Envelope::of($res);
            $code = $env->code();
            if ($env->httpStatus === 429) {
                $this->waits[] = (int) $res->getHeaderLine('Retry-After');
                sleep(end($this->waits));
            } elseif ($env->httpStatus >= 500) {
                usleep(200_000);
            } elseif ($env->httpStatus === 401 && in_array($code, ['token_expired', 'unauthorized'], true)) {
                $this->fetchToken();
            } elseif (in_array($env->httpStatus, [401, 403], true) && $code === 'auth_propagation_pending' && $scenario === null) {
                ($this->wait)(PROPAGATION_RETRY_EVERY);
            } else {
                return $env;
            }
        }
        throw new RuntimeException("$method $path: no success after 12 attempts");
    }

    public function send(string $method, string $path, ?array $body, ?string $key, ?string $scenario, bool $dryRun, ?Client $via = null): ResponseInterface
    {
        $headers = ['Authorization' => "Bearer {$this->token}", 'X-Platform-Parent-Account-Id' => $this->parent()];
        if ($key !== null) {
            $headers['Idempotency-Key'] = $key;
        }
        if ($scenario !== null) {
            $headers['X-Sandbox-Scenario'] = $scenario;
        }
        $options = ['headers' => $headers, 'query' => $dryRun ? ['dry_run' => 'true'] : []];
        if ($body !== null) {
            $options['json'] = $body;
        }
        return ($via ?? $this->http)->request($method, $path, $options);
    }
}

// --- the flow -----------------------------------------------------------------------------

/**
 * Spec rule 5: GET, rebuild the body from the Block entries (each sub-vertical mapped back to
 * its vertical), add one, keep the domains, pass content_hash back, PUT; on 409 re-read and
 * re-apply with the same key (spec rule 4 allows it after a stale-hash rejection).
 */
function addBlockedVertical(Api $api, string $path, array $parentOf, int $sub, bool $drill = true): array
{
    $key = uuid();
    $conflicts = 0;
    for ($attempt = 0; $attempt < 4; $attempt++) {
        $current = $api->call('GET', $path)->data;
        $blocked = [];
        foreach ($current['translated_verticals'] as $v) {
            if ($v['policy'] === 'Block' && $v['vertical_id'] !== $sub) {
                $blocked[] = ['partnerVerticalId' => $parentOf[$v['vertical_id']], 'partnerSubVerticalId' => $v['vertical_id'], 'policy' => 'Block', 'position1Policy' => 'Block'];
            }
        }
        $blocked[] = ['partnerVerticalId' => $parentOf[$sub], 'partnerSubVerticalId' => $sub, 'policy' => 'Block', 'position1Policy' => 'Block'];
        $list = $current['marketplace_controls_list'];
        $body = [
            'blockedVerticals' => $blocked,
            'domains' => array_map(fn ($d) => ['domain' => $d['domain'], 'policy' => $d['policy']], $list['domains']),
            'contentHash' => $list['content_hash'],
        ];
        $scenario = $drill && $attempt === 0 ? 'stale-content-hash' : null; // a concurrent writer wins
        $res = $api->call('PUT', $path, $body, $key, $scenario);
        if ($res->code() === 'content_hash_mismatch') {
            $conflicts++;
            continue;
        }
        if ($res->error !== null) {
            throw new RuntimeException("controls PUT: {$res->status} {$res->message}");
        }
        $ids = array_map(fn ($v) => $v['vertical_id'], array_filter($res->data['translated_verticals'], fn ($v) => $v['policy'] === 'Block'));
        sort($ids);
        return [$conflicts, $ids];
    }
    throw new RuntimeException('controls PUT kept conflicting');
}

function uuid(): string
{
    $b = random_bytes(16);
    $b[6] = chr((ord($b[6]) & 0x0f) | 0x40);
    $b[8] = chr((ord($b[8]) & 0x3f) | 0x80);
    return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($b), 4));
}

function main(): void
{
    $base = rtrim(getenv('SANDBOX_URL') ?: 'http://127.0.0.1:4010', '/');
    $cp = new ControlPlane($base, getenv('SANDBOX_ADMIN_TOKEN') ?: null);

    // A tenant of our own: drills, clock moves and the journal stay ours.
    $partner = $cp->call('POST', '/__sandbox/partners', ['client_secret' => PARTNER_SECRET]);
    $parent = $partner['parent_account_id'];
    $cp->seedTaxonomy($parent);
    echo "partner: $parent created and seeded on the control plane\n";
    $wait = fn (int $s) => getenv('SANDBOX_WAIT') === 'clock' ? $cp->advanceClock($parent, $s) : sleep($s);

    // RFC 6749 2.3.1: Guzzle's 'auth' sends client_id:client_secret without form-encoding.
    $grant = ['grant_type' => 'client_credentials'];
    echo 'basic auth, Guzzle auth, secret "' . PARTNER_SECRET . '": '
        . tokenOutcome($base, ['auth' => [$partner['client_id'], $partner['client_secret']], 'form_params' => $grant]) . "\n";
    echo 'basic auth, form-encoded first: '
        . tokenOutcome($base, ['headers' => ['Authorization' => formEncodedBasic($partner)], 'form_params' => $grant]) . "\n";
    echo 'client_secret_post: ' . tokenOutcome($base, ['form_params' => $grant + ['client_id' => $partner['client_id'], 'client_secret' => $partner['client_secret']]]) . "\n";

    $api = new Api($base, $partner, $wait);
    echo "token: Bearer, expires in {$api->tokenExpiresIn} s\n";

    $mappings = $api->call('GET', '/v1/partnership/vertical-mappings')->data['vertical_mappings'];
    $parentOf = array_column($mappings, 'partner_vertical_id', 'partner_sub_vertical_id');
    echo 'mappings: ' . count($parentOf) . " sub-verticals\n";

    $register = [
        'brand' => 'PHP Provisions', 'vertical_id' => 10, 'sub_vertical_id' => 1001, 'country_code' => 'US',
        'platform_parent_account_id' => $parent, 'store_identifier' => 'https://php.example.com',
        'external_account_id' => 'php-' . uuid(),
    ];
    $path = '/v1/accounts/register/partnership';
    $first = $api->call('POST', $path, $register, null, 'auth-propagation=60');
    $account = $first->data['account_id'];
    if ($api->call('POST', $path, $register)->data['account_id'] !== $account) {
        throw new RuntimeException('the same external_account_id registered a second account');
    }
    echo "register: $account, " . count($first->data['pages']) . " pages; the same external_account_id again matched it\n";

    // Spec 5.5: a new account's calls answer 401 or 403 for up to two minutes; Api::call
    // retries them every 20 s. The journal shows what it met.
    $controls = "/v1/partnership/accounts/$account/marketplacecontrolslists";
    $api->call('GET', $controls);
    $journal = $cp->call('GET', "/__sandbox/requests?parent_account_id=$parent&path=" . urlencode($controls))['requests'];
    $statuses = array_reverse(array_column($journal, 'status'));
    $seen = [];
    foreach ($statuses as $s) {
        if ($s !== 401 && $s !== 403) {
            break;
        }
        $seen[] = $s;
    }
    if (count($seen) * PROPAGATION_RETRY_EVERY > PROPAGATION_GIVE_UP) {
        throw new RuntimeException("authentication never propagated to $account");
    }
    echo 'propagation: ' . implode(', ', $seen) . ', then ' . $statuses[count($seen)] . ' (retried every ' . PROPAGATION_RETRY_EVERY . " s)\n";

    [$conflicts, $blocked] = addBlockedVertical($api, $controls, $parentOf, 2002);
    echo 'rule 5: blocked [' . implode(', ', $blocked) . "] after $conflicts conflict (409 content_hash_mismatch: re-read, re-applied, same Idempotency-Key)\n";

    $statusPath = "/v1/partnership/accounts/$account/status";
    $dry = $api->call('PUT', $statusPath, ['status' => 'paused'], uuid(), null, true);
    $now = $api->call('GET', $statusPath);
    $paused = $api->call('PUT', $statusPath, ['status' => 'paused'], uuid());
    echo "status: dry run showed {$dry->data['status']} (dry_run " . var_export($dry->dryRun, true) . ") while the account stayed {$now->data['status']}; then {$paused->data['status']} (" . count($paused->data['variants']) . " variants)\n";

    // Partial failure (spec section 3): keep request_id, re-check, retry with a fresh key
    // (the same key would only replay the partial failure).
    $partial = $api->call('PUT', $statusPath, ['status' => 'active'], uuid(), 'status-partial-failure=1');
    if ($partial->code() !== 'partial_failure') {
        throw new RuntimeException("partial failure: {$partial->code()}");
    }
    $recheck = $api->call('GET', $statusPath);
    $fixed = $api->call('PUT', $statusPath, ['status' => 'active'], uuid());
    echo "partial failure: 200 {$partial->code()}, status {$partial->data['status']}, kept request_id {$partial->requestId}; re-checked {$recheck->data['status']}, retried with a fresh key: {$fixed->data['status']}\n";

    // What a reset looks like: on a fresh connection, a RequestException (cURL error 56), not
    // a ConnectException.
    $cp->arm($account, 'connection-reset');
    try {
        $api->send('GET', $statusPath, null, null, null, false);
        throw new RuntimeException('connection-reset: the call got an answer');
    } catch (ConnectException $e) {
        throw new RuntimeException('connection-reset: a ConnectException');
    } catch (RequestException $e) {
        echo 'connection-reset, fresh connection: ' . get_class($e) . ' "' . substr($e->getMessage(), 0, 48) . "...\"\n";
    }
    // On a reused keep-alive connection, libcurl resends the request itself, a POST without a
    // key included: the caller sees a 200 and the sandbox says so.
    $keepAlive = new Client(['base_uri' => $base, 'http_errors' => false]);
    $api->send('GET', '/v1/partnership/vertical-mappings', null, null, null, false, $keepAlive); // opens the connection
    $cp->arm($account, 'connection-reset');
    $res = $api->send('GET', $statusPath, null, null, null, false, $keepAlive);
    $warning = $res->getHeaderLine('X-Sandbox-Warning');
    if ($res->getStatusCode() !== 200 || !str_contains($warning, 'CURLOPT_FORBID_REUSE')) {
        throw new RuntimeException("keep-alive reset: {$res->getStatusCode()} warning \"$warning\"");
    }
    echo "connection-reset, reused connection: the caller saw {$res->getStatusCode()}; X-Sandbox-Warning names CURLOPT_FORBID_REUSE\n";
    $cp->call('PUT', '/__sandbox/scenarios', ['scenario' => 'connection-reset', 'parent_account_id' => $parent, 'times' => 1]);
    $again = $register + ['external_account_id' => 'php-' . uuid()];
    $res = $api->send('POST', $path, $again, null, null, false, $keepAlive);
    $warning = $res->getHeaderLine('X-Sandbox-Warning');
    if ($res->getStatusCode() !== 200 || !str_contains($warning, 'CURLOPT_FORBID_REUSE')) {
        throw new RuntimeException("keep-alive reset of a register: {$res->getStatusCode()} warning \"$warning\"");
    }
    echo "connection-reset, reused connection, POST register: resent by libcurl, the caller saw {$res->getStatusCode()}\n";

    // Chaos: a share of the calls fails with documented failures; the client above gets through.
    $cp->call('PUT', '/__sandbox/chaos', ['rate' => 0.3, 'seed' => 31, 'parent_account_id' => $parent]);
    for ($i = 0; $i < 6; $i++) {
        $api->call('GET', $controls);
        addBlockedVertical($api, $controls, $parentOf, [2001, 4002, 1002][$i % 3], false);
        $api->call('PUT', $statusPath, ['status' => $i % 2 ? 'active' : 'paused'], uuid());
        $api->call('GET', $statusPath);
    }
    $cp->call('DELETE', "/__sandbox/chaos?parent_account_id=$parent");
    $report = $cp->call('GET', "/__sandbox/report?parent_account_id=$parent");
    $parts = array_map(fn ($r) => "{$r['scenario']} {$r['recovered']}/{$r['injected']} {$r['outcome']}", $report['resilience']);
    $failing = array_filter($report['resilience'], fn ($r) => $r['outcome'] !== 'passed');
    if ($failing || !$parts) {
        throw new RuntimeException('chaos: not every failure recovered: ' . json_encode(array_values($failing)));
    }
    echo 'chaos: seed 31, every injected failure recovered: ' . implode(', ', $parts) . "\n";
}

try {
    main();
} catch (Throwable $e) {
    echo 'FAIL: ' . get_class($e) . ': ' . $e->getMessage() . "\n";
    exit(1);
}
echo "done\n";

package main

// The partner's API client: net/http, tokens from x/oauth2's clientcredentials, a refresh
// when the service says the token is no longer valid, Retry-After honoured on 429/503,
// and every answer decoded strictly (spec.go).

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

// refreshing puts the bearer token on each request. x/oauth2 decides a token is expired
// from its own clock (expires_in counted from when it got the token), so it never notices
// a token the service refuses early, or one refused because the service's clock moved
// (the sandbox's clock/advance). On 401 with error="invalid_token", a token that has
// worked before has expired: fetch a new one and retry once. A token that has never worked
// is not refreshed again (a new account's propagation 401s carry invalid_token too, and a
// new token does not help there).
type refreshing struct {
	cfg  *clientcredentials.Config
	ctx  context.Context // carries oauth2.HTTPClient: the token calls use our transport
	base http.RoundTripper

	mu        sync.Mutex
	src       oauth2.TokenSource
	proven    bool // the current token has had a 2xx answer
	refreshes int
}

func newRefreshing(ctx context.Context, cfg *clientcredentials.Config, base http.RoundTripper) *refreshing {
	return &refreshing{cfg: cfg, ctx: ctx, base: base, src: cfg.TokenSource(ctx)}
}

func (t *refreshing) token() (*oauth2.Token, bool, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	tok, err := t.src.Token()
	return tok, t.proven, err
}

func (t *refreshing) send(req *http.Request, tok *oauth2.Token) (*http.Response, error) {
	r := req.Clone(req.Context())
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return nil, err
		}
		r.Body = body
	}
	tok.SetAuthHeader(r)
	return t.base.RoundTrip(r)
}

func (t *refreshing) RoundTrip(req *http.Request) (*http.Response, error) {
	tok, proven, err := t.token()
	if err != nil {
		return nil, err
	}
	res, err := t.send(req, tok)
	if err != nil {
		return nil, err
	}
	refused := res.StatusCode == http.StatusUnauthorized &&
		strings.Contains(res.Header.Get("WWW-Authenticate"), `error="invalid_token"`)
	replayable := req.Body == nil || req.Body == http.NoBody || req.GetBody != nil
	if refused && proven && replayable {
		res.Body.Close()
		t.mu.Lock()
		t.src = t.cfg.TokenSource(t.ctx) // a fresh ReuseTokenSource: the next Token() asks the server
		t.proven = false
		t.refreshes++
		t.mu.Unlock()
		if tok, _, err = t.token(); err != nil {
			return nil, err
		}
		if res, err = t.send(req, tok); err != nil {
			return nil, err
		}
	}
	if res.StatusCode < 300 {
		t.mu.Lock()
		t.proven = true
		t.mu.Unlock()
	}
	return res, nil
}

// answer is one call's outcome: the HTTP status, the Retry-After waits it honoured, and
// the raw body (decoded strictly by call).
type answer struct {
	status int
	header http.Header
	waited []time.Duration
}

type apiClient struct {
	base   string
	parent string
	http   *http.Client
}

type callOptions struct {
	idempotencyKey string
	scenario       string // X-Sandbox-Scenario: a drill on this call only
	dryRun         bool
}

// call sends one request, honours Retry-After on 429 and 503 (up to 3 times, the same
// Idempotency-Key: an answer that was refused was not executed), and decodes the answer
// strictly into out.
func call[T any](ctx context.Context, c *apiClient, method, path string, in any, opt callOptions) (*Envelope[T], answer, error) {
	var raw []byte
	if in != nil {
		var err error
		if raw, err = json.Marshal(in); err != nil {
			return nil, answer{}, err
		}
	}
	if opt.dryRun {
		path += "?dry_run=true"
	}
	var ans answer
	for attempt := 0; ; attempt++ {
		var body io.Reader
		if raw != nil {
			body = bytes.NewReader(raw) // NewRequest sets GetBody: the request can be replayed
		}
		req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
		if err != nil {
			return nil, ans, err
		}
		req.Header.Set("X-Platform-Parent-Account-Id", c.parent)
		if raw != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if opt.idempotencyKey != "" {
			req.Header.Set("Idempotency-Key", opt.idempotencyKey)
		}
		if opt.scenario != "" {
			req.Header.Set("X-Sandbox-Scenario", opt.scenario)
		}
		res, err := c.http.Do(req)
		if err != nil {
			return nil, ans, err
		}
		text, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, ans, err
		}
		ans.status, ans.header = res.StatusCode, res.Header
		if wait, ok := retryAfter(res); ok && attempt < 3 {
			ans.waited = append(ans.waited, wait)
			time.Sleep(wait)
			continue
		}
		env, err := decodeEnvelope[T](text, opt.dryRun)
		if err != nil {
			return nil, ans, fmt.Errorf("%s %s answered %d: %w\n%s", method, path, res.StatusCode, err, text)
		}
		if env.Status != res.StatusCode {
			return nil, ans, fmt.Errorf("%s %s: envelope status %d on HTTP %d", method, path, env.Status, res.StatusCode)
		}
		return env, ans, nil
	}
}

// retryAfter: how long a 429 or 503 asks us to wait (delta-seconds or an HTTP date).
func retryAfter(res *http.Response) (time.Duration, bool) {
	if res.StatusCode != http.StatusTooManyRequests && res.StatusCode != http.StatusServiceUnavailable {
		return 0, false
	}
	v := res.Header.Get("Retry-After")
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return capWait(time.Duration(s) * time.Second), true
	}
	if t, err := http.ParseTime(v); err == nil {
		return capWait(time.Until(t)), true
	}
	return 0, false // no Retry-After: not ours to guess; the caller sees the answer
}

func capWait(d time.Duration) time.Duration {
	if d < 0 {
		return 0
	}
	if d > 30*time.Second {
		return 30 * time.Second
	}
	return d
}

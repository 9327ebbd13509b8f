// A partner integration in Go against the partnership sandbox: register, the propagation
// retry of spec section 5, the rule-5 recipe with its 409 retry, a dry run, status, the
// layout edit, then the drills a Go client trips on: rate-limited (Retry-After), a token
// refused after the clock moved (refresh), and connection-reset (net/http's silent retry).
//
//	SANDBOX_URL=http://127.0.0.1:4010 go run .
//
// SANDBOX_ADMIN_TOKEN: the control-plane token, when the sandbox has one.
// SANDBOX_WAIT=clock: waits between propagation retries move the sandbox clock instead of
// sleeping (a test run); the default sleeps for real, as a client would.
// SANDBOX_OPENAPI_URL: the OpenAPI 3.0 document (default $SANDBOX_URL/openapi-3.0.json).
//
// Each step prints one line; the first failure prints "FAIL: ..." and exits 1.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

const (
	propagationRetryEvery = 20 * time.Second  // spec 5.5: every 15 to 30 seconds
	propagationGiveUp     = 120 * time.Second // spec 5.5: for up to two minutes
	// A secret with the characters RFC 6749 section 2.3.1 form-encodes before HTTP Basic:
	// x/oauth2 does (url.QueryEscape), so this works over Basic.
	partnerSecret = "go+s3cr%t/:x"
)

func main() {
	if err := run(context.Background()); err != nil {
		fmt.Println("FAIL:", err)
		os.Exit(1)
	}
	fmt.Println("done")
}

func env(name, fallback string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return fallback
}

func uuid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

func run(ctx context.Context) error {
	base := strings.TrimRight(env("SANDBOX_URL", "http://127.0.0.1:4010"), "/")
	cp := controlPlane{base: base, adminToken: os.Getenv("SANDBOX_ADMIN_TOKEN"), client: &http.Client{Timeout: 10 * time.Second}}

	docURL := env("SANDBOX_OPENAPI_URL", base+"/openapi-3.0.json")
	spec, err := loadContract(ctx, docURL, base)
	if err != nil {
		return fmt.Errorf("contract: %w", err)
	}
	fmt.Printf("contract: %s loaded and valid (OpenAPI %s, %d operations)\n", docURL, spec.doc.OpenAPI, spec.operations())

	// A tenant of our own: drills, clock moves and the journal stay ours.
	p, err := cp.createPartner(ctx, partnerSecret)
	if err != nil {
		return err
	}
	if err := cp.seedTaxonomy(ctx, p.ParentAccountID); err != nil {
		return err
	}
	fmt.Printf("partner: %s created and seeded on the control plane\n", p.ParentAccountID)

	wait := func(d time.Duration) error {
		if os.Getenv("SANDBOX_WAIT") == "clock" {
			return cp.advanceClock(ctx, p.ParentAccountID, int(d.Seconds()))
		}
		time.Sleep(d)
		return nil
	}

	// The default transport, keep-alive on; every answer checked against the contract.
	keepAlive := validating{base: http.DefaultTransport.(*http.Transport).Clone(), contract: spec}
	cfg := &clientcredentials.Config{
		ClientID:     p.ClientID,
		ClientSecret: p.ClientSecret,
		TokenURL:     base + "/oauth/token",
		AuthStyle:    oauth2.AuthStyleInHeader, // HTTP Basic, both parts form-encoded first
	}
	tokenCtx := context.WithValue(ctx, oauth2.HTTPClient, &http.Client{Transport: keepAlive, Timeout: 10 * time.Second})
	auth := newRefreshing(tokenCtx, cfg, keepAlive)
	api := &apiClient{base: base, parent: p.ParentAccountID, http: &http.Client{Transport: auth, Timeout: 30 * time.Second}}

	tok, _, err := auth.token()
	if err != nil {
		return fmt.Errorf("token: %w", err)
	}
	fmt.Printf("token: %s, expires in %.0f s by x/oauth2's clock (secret %q over HTTP Basic)\n",
		tok.TokenType, time.Until(tok.Expiry).Seconds(), partnerSecret)

	// Endpoint 1: the taxonomy, and sub-vertical -> vertical for rule 5.
	mappings, _, err := call[MappingsData](ctx, api, http.MethodGet, "/v1/partnership/vertical-mappings?parent_account_id="+p.ParentAccountID, nil, callOptions{})
	if err != nil {
		return err
	}
	parentOf := map[int]int{}
	for _, m := range mappings.Data.VerticalMappings {
		parentOf[m.PartnerSubVerticalID] = m.PartnerVerticalID
	}
	fmt.Printf("mappings: %d sub-verticals\n", len(parentOf))

	// Endpoint 2: register; a drill makes the new account's authentication propagate for 60 s.
	reg := RegisterRequest{
		Brand: "Gopher Goods", VerticalID: 10, SubVerticalID: 1001, CountryCode: "US",
		PlatformParentAccountID: p.ParentAccountID, StoreIdentifier: "https://gopher.example.com",
		ExternalAccountID: "go-" + uuid(),
	}
	first, _, err := call[RegisterData](ctx, api, http.MethodPost, "/v1/accounts/register/partnership", reg, callOptions{scenario: "auth-propagation=60"})
	if err != nil || first.Error != nil {
		return fmt.Errorf("register: %v %+v", err, first)
	}
	account := first.Data.AccountID
	again, _, err := call[RegisterData](ctx, api, http.MethodPost, "/v1/accounts/register/partnership", reg, callOptions{})
	if err != nil || again.Data == nil || again.Data.AccountID != account {
		return fmt.Errorf("register retry did not match %s: %v", account, err)
	}
	fmt.Printf("register: %s, %d pages; the same external_account_id again matched it\n", account, len(first.Data.Pages))

	// Spec 5.5: a new account's calls answer 401 or 403 for up to two minutes.
	controlsPath := "/v1/partnership/accounts/" + account + "/marketplacecontrolslists"
	var seen []string
	for waited := time.Duration(0); ; waited += propagationRetryEvery {
		res, ans, err := call[ControlsData](ctx, api, http.MethodGet, controlsPath, nil, callOptions{})
		if err != nil {
			return err
		}
		if ans.status != http.StatusUnauthorized && ans.status != http.StatusForbidden {
			if res.Error != nil {
				return fmt.Errorf("controls GET: %d %s", ans.status, res.Error.Code)
			}
			break
		}
		seen = append(seen, fmt.Sprint(ans.status))
		if waited >= propagationGiveUp {
			return fmt.Errorf("authentication never propagated to %s", account)
		}
		if err := wait(propagationRetryEvery); err != nil {
			return err
		}
	}
	fmt.Printf("propagation: %s, then 200 (retried every %s)\n", strings.Join(seen, ", "), propagationRetryEvery)

	// Rule 5 with the 409 recovery; the first PUT loses a race (stale-content-hash drill).
	conflicts, blocked, err := addBlockedVertical(ctx, api, controlsPath, parentOf, BlockedVertical{20, 2002, "Block", "Block"})
	if err != nil {
		return err
	}
	fmt.Printf("rule 5: blocked %v after %d conflict (409 content_hash_mismatch: re-read, re-applied, same Idempotency-Key)\n", blocked, conflicts)

	// A dry run (dry_run: true in the envelope, nothing written), then the write with a FRESH key.
	statusPath := "/v1/partnership/accounts/" + account + "/status"
	dry, _, err := call[StatusData](ctx, api, http.MethodPut, statusPath, map[string]string{"status": "paused"}, callOptions{idempotencyKey: uuid(), dryRun: true})
	if err != nil {
		return err
	}
	now, _, err := call[StatusData](ctx, api, http.MethodGet, statusPath, nil, callOptions{})
	if err != nil {
		return err
	}
	paused, _, err := call[StatusData](ctx, api, http.MethodPut, statusPath, map[string]string{"status": "paused"}, callOptions{idempotencyKey: uuid()})
	if err != nil || paused.Data == nil {
		return fmt.Errorf("status PUT: %v", err)
	}
	fmt.Printf("status: dry run showed %s while the account stayed %s; then %s (%d variants)\n",
		dry.Data.Status, now.Data.Status, paused.Data.Status, len(paused.Data.Variants))

	// Endpoint 7: the layout edit.
	layoutID := first.Data.Pages[0].LayoutID
	layout, _, err := call[LayoutData](ctx, api, http.MethodPatch, "/v1/partnership/accounts/"+account+"/layouts/"+layoutID,
		map[string]string{"layout_type": "Embedded"}, callOptions{idempotencyKey: uuid()})
	if err != nil || layout.Data == nil {
		return fmt.Errorf("layout PATCH: %v", err)
	}
	fmt.Printf("layout: %s is %s\n", layout.Data.LayoutID, layout.Data.LayoutType)

	// Drill: rate-limited, armed on the control plane; Retry-After is honoured, then 200.
	if err := cp.arm(ctx, account, "rate-limited", 1, 1); err != nil {
		return err
	}
	start := time.Now()
	_, ans, err := call[StatusData](ctx, api, http.MethodGet, statusPath, nil, callOptions{})
	if err != nil || ans.status != http.StatusOK || len(ans.waited) != 1 {
		return fmt.Errorf("rate-limited drill: %v, status %d, waits %v", err, ans.status, ans.waited)
	}
	fmt.Printf("rate-limited: 429 with Retry-After: %s, waited %.1f s, then %d\n", ans.waited[0], time.Since(start).Seconds(), ans.status)

	// Drill: the sandbox clock passes the token's expiry; x/oauth2 still holds it as valid.
	tok, _, _ = auth.token()
	if err := cp.advanceClock(ctx, p.ParentAccountID, int(time.Until(tok.Expiry).Seconds())+60); err != nil {
		return err
	}
	before := auth.refreshes
	_, ans, err = call[StatusData](ctx, api, http.MethodGet, statusPath, nil, callOptions{})
	if err != nil || ans.status != http.StatusOK || auth.refreshes != before+1 {
		return fmt.Errorf("token refresh: %v, status %d, refreshes %d", err, ans.status, auth.refreshes-before)
	}
	fmt.Println("token refresh: the clock moved past expires_in; 401 invalid_token, new token, retried: 200")

	if err := connectionResetDrills(ctx, cp, api, auth, spec, account, statusPath); err != nil {
		return err
	}

	checked, missing, problems := spec.summary()
	if len(problems) > 0 {
		return fmt.Errorf("answers that do not match %s:\n  %s", docURL, strings.Join(problems, "\n  "))
	}
	if len(missing) > 0 {
		return fmt.Errorf("operations never exercised: %v", missing)
	}
	fmt.Printf("contract: every answer matched the document (%d operations: %s)\n", len(checked), strings.Join(checked, ", "))
	return nil
}

// addBlockedVertical is spec rule 5: GET, rebuild the body from the Block entries (each
// sub-vertical mapped back to its vertical), add one, keep the domains, pass content_hash
// back, PUT; on 409 re-read and re-apply (the same key may be reused after a 409).
func addBlockedVertical(ctx context.Context, api *apiClient, path string, parentOf map[int]int, add BlockedVertical) (int, []int, error) {
	key := uuid()
	for attempt, conflicts := 0, 0; attempt < 3; attempt++ {
		list, _, err := call[ControlsData](ctx, api, http.MethodGet, path, nil, callOptions{})
		if err != nil || list.Data == nil {
			return 0, nil, fmt.Errorf("controls GET: %v", err)
		}
		body := ControlsWrite{Domains: list.Data.MarketplaceControlsList.Domains, ContentHash: &list.Data.MarketplaceControlsList.ContentHash}
		for _, v := range list.Data.TranslatedVerticals {
			if v.Policy == "Block" && v.VerticalID != add.PartnerSubVerticalID {
				body.BlockedVerticals = append(body.BlockedVerticals, BlockedVertical{parentOf[v.VerticalID], v.VerticalID, "Block", "Block"})
			}
		}
		body.BlockedVerticals = append(body.BlockedVerticals, add)
		opt := callOptions{idempotencyKey: key}
		if attempt == 0 {
			opt.scenario = "stale-content-hash" // drill: a concurrent writer gets there first
		}
		res, ans, err := call[ControlsData](ctx, api, http.MethodPut, path, body, opt)
		if err != nil {
			return 0, nil, err
		}
		if ans.status == http.StatusConflict && res.Error.Code == "content_hash_mismatch" {
			conflicts++
			continue
		}
		if res.Data == nil {
			return 0, nil, fmt.Errorf("controls PUT: %d %s", ans.status, res.Error.Code)
		}
		var blocked []int
		for _, v := range res.Data.TranslatedVerticals {
			if v.Policy == "Block" {
				blocked = append(blocked, v.VerticalID)
			}
		}
		return conflicts, blocked, nil
	}
	return 0, nil, errors.New("controls PUT kept conflicting")
}

// connectionResetDrills: net/http retries an idempotent request (GET, HEAD, OPTIONS, or one
// with an Idempotency-Key header) once, silently, when a reused keep-alive connection fails.
// A connection-reset drill armed for one call then never reaches the caller. With
// DisableKeepAlives every request has a fresh connection, and the reset surfaces.
func connectionResetDrills(ctx context.Context, cp controlPlane, api *apiClient, auth *refreshing, spec *contract, account, statusPath string) error {
	// Warm a keep-alive connection, then arm the reset for the next call only.
	if _, _, err := call[StatusData](ctx, api, http.MethodGet, statusPath, nil, callOptions{}); err != nil {
		return err
	}
	journaled := func() (int, error) {
		entries, err := cp.journal(ctx, account, statusPath)
		return len(entries), err
	}
	n0, err := journaled()
	if err != nil {
		return err
	}
	if err := cp.arm(ctx, account, "connection-reset", nil, 1); err != nil {
		return err
	}
	_, ans, err := call[StatusData](ctx, api, http.MethodGet, statusPath, nil, callOptions{})
	if err != nil {
		return fmt.Errorf("connection-reset with keep-alive: %w", err)
	}
	n1, err := journaled()
	if err != nil {
		return err
	}
	fmt.Printf("connection-reset, keep-alive: the caller saw %d; the sandbox received %d calls (the reset, then net/http's silent retry)\n", ans.status, n1-n0)

	// The same drill with keep-alives off: the caller sees the reset.
	fresh := http.DefaultTransport.(*http.Transport).Clone()
	fresh.DisableKeepAlives = true
	noReuse := &apiClient{base: api.base, parent: api.parent, http: &http.Client{
		Transport: &refreshing{cfg: auth.cfg, ctx: auth.ctx, base: validating{base: fresh, contract: spec}, src: auth.src, proven: true},
		Timeout:   30 * time.Second,
	}}
	if err := cp.arm(ctx, account, "connection-reset", nil, 1); err != nil {
		return err
	}
	_, _, err = call[StatusData](ctx, noReuse, http.MethodGet, statusPath, nil, callOptions{})
	if !errors.Is(err, syscall.ECONNRESET) {
		return fmt.Errorf("connection-reset with DisableKeepAlives: want ECONNRESET, got %v", err)
	}
	fmt.Printf("connection-reset, DisableKeepAlives: the caller saw %v\n", err)
	return nil
}

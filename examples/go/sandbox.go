package main

// The sandbox's control plane (/__sandbox: docs/control-plane.md) driven with plain
// net/http: no SDK is needed to create a partner, seed its taxonomy, arm a drill or move
// the clock.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

type controlPlane struct {
	base       string
	adminToken string // SANDBOX_ADMIN_TOKEN, when the sandbox has one
	client     *http.Client
}

type partner struct {
	ParentAccountID string `json:"parent_account_id"`
	ClientID        string `json:"client_id"`
	ClientSecret    string `json:"client_secret"`
}

func (cp controlPlane) call(ctx context.Context, method, path string, in, out any) (int, error) {
	var body io.Reader
	if in != nil {
		raw, err := json.Marshal(in)
		if err != nil {
			return 0, err
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, cp.base+path, body)
	if err != nil {
		return 0, err
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if cp.adminToken != "" {
		req.Header.Set("Authorization", "Bearer "+cp.adminToken)
	}
	res, err := cp.client.Do(req)
	if err != nil {
		return 0, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return res.StatusCode, err
	}
	if res.StatusCode >= 300 {
		return res.StatusCode, fmt.Errorf("%s %s: %d %s", method, path, res.StatusCode, raw)
	}
	if out != nil {
		return res.StatusCode, json.Unmarshal(raw, out)
	}
	return res.StatusCode, nil
}

// createPartner makes a tenant of our own, so drills and clock moves disturb nobody else.
func (cp controlPlane) createPartner(ctx context.Context, clientSecret string) (partner, error) {
	var p partner
	_, err := cp.call(ctx, http.MethodPost, "/__sandbox/partners", map[string]string{"client_secret": clientSecret}, &p)
	return p, err
}

// seedTaxonomy is the operator's one-off seeding of the partner's vertical mapping (spec 1.2).
func (cp controlPlane) seedTaxonomy(ctx context.Context, parent string) error {
	type entry struct {
		PartnerVerticalID      int    `json:"partner_vertical_id"`
		PartnerVerticalName    string `json:"partner_vertical_name"`
		PartnerSubVerticalID   int    `json:"partner_sub_vertical_id"`
		PartnerSubVerticalName string `json:"partner_sub_vertical_name"`
		VerticalName           string `json:"vertical_name"`
	}
	mappings := []entry{
		{10, "Apparel & Accessories", 1001, "Women's Clothing", "Apparel > Womenswear"},
		{10, "Apparel & Accessories", 1002, "Men's Clothing", "Apparel > Menswear"},
		{20, "Health & Beauty", 2001, "Skincare", "Beauty > Skincare"},
		{20, "Health & Beauty", 2002, "Vitamins & Supplements", "Health > Dietary Supplements"},
		{40, "Games & Gambling", 4002, "Online Casino", "Gambling > Casino"},
		{40, "Games & Gambling", 4003, "Sports Betting", "Gambling > Sports Betting"},
	}
	_, err := cp.call(ctx, http.MethodPut, "/__sandbox/partners/"+url.PathEscape(parent)+"/vertical-mappings",
		map[string]any{"vertical_mappings": mappings}, nil)
	return err
}

// arm makes the next `times` matching calls on one account run a scenario.
func (cp controlPlane) arm(ctx context.Context, accountID, scenario string, value any, times int) error {
	body := map[string]any{"scenario": scenario, "account_id": accountID, "times": times}
	if value != nil {
		body["value"] = value
	}
	_, err := cp.call(ctx, http.MethodPut, "/__sandbox/scenarios", body, nil)
	return err
}

// advanceClock moves this partner's sandbox clock (docs/parallel-tests.md); a sandbox
// without per-partner clocks answers 404, and then the global clock moves.
func (cp controlPlane) advanceClock(ctx context.Context, parent string, seconds int) error {
	body := map[string]int{"seconds": seconds}
	status, err := cp.call(ctx, http.MethodPost, "/__sandbox/partners/"+url.PathEscape(parent)+"/clock/advance", body, nil)
	if status == http.StatusNotFound {
		_, err = cp.call(ctx, http.MethodPost, "/__sandbox/clock/advance", body, nil)
	}
	return err
}

type journalEntry struct {
	Method           string   `json:"method"`
	Path             string   `json:"path"`
	Status           int      `json:"status"`
	ScenariosApplied []string `json:"scenarios_applied"`
}

// journal lists what the sandbox received for a path (newest first).
func (cp controlPlane) journal(ctx context.Context, accountID, path string) ([]journalEntry, error) {
	var out struct {
		Requests []journalEntry `json:"requests"`
	}
	q := url.Values{"account_id": {accountID}, "path": {path}}
	_, err := cp.call(ctx, http.MethodGet, "/__sandbox/requests?"+q.Encode(), nil, &out)
	return out.Requests, err
}

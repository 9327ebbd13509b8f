package main

// The answers of the Partnership Accounts API, typed from the spec's tables (sections 1
// and 2), and a strict decoder: a field the spec does not name is an error, not ignored.
// A client built like this breaks the day a service starts sending a field it does not
// promise, which is exactly when a partner wants to know.

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Envelope is spec section 1: every answer is {status, error, message, request_id, data},
// plus dry_run: true when dry_run=true was sent.
type Envelope[T any] struct {
	Status    int       `json:"status"`
	Error     *APIError `json:"error"`
	Message   string    `json:"message"`
	RequestID string    `json:"request_id"`
	Data      *T        `json:"data"`
	DryRun    *bool     `json:"dry_run,omitempty"`
}

// APIError is the error object the spec leaves open: a stable code and optional details.
type APIError struct {
	Code    string          `json:"code"`
	Details json.RawMessage `json:"details,omitempty"`
}

// VerticalMapping is spec 2.1.
type VerticalMapping struct {
	PartnerVerticalID      int    `json:"partner_vertical_id"`
	PartnerVerticalName    string `json:"partner_vertical_name"`
	PartnerSubVerticalID   int    `json:"partner_sub_vertical_id"`
	PartnerSubVerticalName string `json:"partner_sub_vertical_name"`
	VerticalName           string `json:"vertical_name"`
	CreatedAt              string `json:"created_at"`
}

type MappingsData struct {
	VerticalMappings []VerticalMapping `json:"vertical_mappings"`
}

// RegisterRequest is spec 2.2.
type RegisterRequest struct {
	Brand                   string `json:"brand"`
	VerticalID              int    `json:"vertical_id"`
	SubVerticalID           int    `json:"sub_vertical_id"`
	CountryCode             string `json:"country_code"`
	PlatformParentAccountID string `json:"platform_parent_account_id"`
	StoreIdentifier         string `json:"store_identifier"`
	ExternalAccountID       string `json:"external_account_id"`
}

// RegisterData is spec 2.3.
type RegisterData struct {
	AccountID string           `json:"account_id"`
	Pages     []RegisteredPage `json:"pages,omitempty"`
}

type RegisteredPage struct {
	Surface        string `json:"surface"`
	PageID         string `json:"page_id"`
	LayoutID       string `json:"layout_id"`
	PageIdentifier string `json:"page_identifier"`
}

// ControlsData is spec 2.4 (the read shape).
type ControlsData struct {
	AccountID               string               `json:"account_id"`
	MarketplaceControlsList ControlsList         `json:"marketplace_controls_list"`
	TranslatedVerticals     []TranslatedVertical `json:"translated_verticals"`
}

type ControlsList struct {
	MarketplaceControlsListID string       `json:"marketplace_controls_list_id"`
	Domains                   []DomainRule `json:"domains"`
	ContentHash               string       `json:"content_hash"`
}

type DomainRule struct {
	Domain string `json:"domain"`
	Policy string `json:"policy"`
}

type TranslatedVertical struct {
	VerticalID      int    `json:"vertical_id"` // the partner's SUB-vertical ID
	Policy          string `json:"policy"`
	Position1Policy string `json:"position_1_policy"`
}

// ControlsWrite is spec 2.5 (the PUT body: camelCase).
type ControlsWrite struct {
	BlockedVerticals []BlockedVertical `json:"blockedVerticals"`
	Domains          []DomainRule      `json:"domains"`
	ContentHash      *string           `json:"contentHash"`
}

type BlockedVertical struct {
	PartnerVerticalID    int    `json:"partnerVerticalId"`
	PartnerSubVerticalID int    `json:"partnerSubVerticalId"`
	Policy               string `json:"policy"`
	Position1Policy      string `json:"position1Policy"`
}

// StatusData is spec 2.6.
type StatusData struct {
	AccountID string    `json:"account_id"`
	Status    string    `json:"status"`
	Variants  []Variant `json:"variants"`
}

type Variant struct {
	PageID string `json:"page_id"`
	Name   string `json:"name"`
	Status string `json:"status"`
}

// LayoutData is endpoint 7's answer: the spec shows none; the sandbox answers the layout
// fields the spec names elsewhere (2.2 and 2.3 pages[]).
type LayoutData struct {
	LayoutID   string `json:"layout_id"`
	PageID     string `json:"page_id"`
	Surface    string `json:"surface"`
	LayoutType string `json:"layout_type"`
}

// decodeStrict decodes one JSON value into out, refusing fields out does not declare and
// anything after the value.
func decodeStrict(raw []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the JSON value")
	}
	return nil
}

// decodeEnvelope decodes an answer strictly: the five envelope fields must all be there,
// dry_run exactly when a dry run was asked for, and nothing the spec does not name.
func decodeEnvelope[T any](raw []byte, dryRun bool) (*Envelope[T], error) {
	var keys map[string]json.RawMessage
	if err := json.Unmarshal(raw, &keys); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	for _, k := range []string{"status", "error", "message", "request_id", "data"} {
		if _, ok := keys[k]; !ok {
			return nil, fmt.Errorf("envelope field %q is missing", k)
		}
	}
	var env Envelope[T]
	if err := decodeStrict(raw, &env); err != nil {
		return nil, fmt.Errorf("strict decoding: %w", err)
	}
	if (env.DryRun != nil) != dryRun {
		return nil, fmt.Errorf("dry_run is %v on a call sent with dry_run=%v", env.DryRun != nil, dryRun)
	}
	if env.DryRun != nil && !*env.DryRun {
		return nil, fmt.Errorf("dry_run is false: the spec only ever sends dry_run: true")
	}
	if env.Error == nil && env.Data == nil {
		return nil, fmt.Errorf("a success without data")
	}
	return &env, nil
}

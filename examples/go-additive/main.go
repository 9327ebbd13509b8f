// The additive-changes drill (docs/contracts.md) against a Go client that decodes the spec's
// tables, in two ways: strictly (json.Decoder.DisallowUnknownFields, which refuses a field it
// does not know) and tolerantly (encoding/json's default, which skips it). A compatible
// release of the API may add fields and reorder them: the strict client breaks on it, the
// tolerant one reads the same values as without the drill. Standard library only.
//
//	SANDBOX_URL=http://127.0.0.1:4010 go run . [-strict]
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

// Envelope is spec §1's envelope; MappingsData spec §2.1's answer.
type Envelope[T any] struct {
	Status    int             `json:"status"`
	Error     json.RawMessage `json:"error"`
	Message   string          `json:"message"`
	RequestID string          `json:"request_id"`
	Data      *T              `json:"data"`
}

type Mapping struct {
	PartnerVerticalID      int    `json:"partner_vertical_id"`
	PartnerVerticalName    string `json:"partner_vertical_name"`
	PartnerSubVerticalID   int    `json:"partner_sub_vertical_id"`
	PartnerSubVerticalName string `json:"partner_sub_vertical_name"`
	VerticalName           string `json:"vertical_name"`
	CreatedAt              string `json:"created_at"`
}

type MappingsData struct {
	VerticalMappings []Mapping `json:"vertical_mappings"`
}

type grant struct {
	AccessToken string `json:"access_token"`
}

func decode[T any](body []byte, strict bool) (*Envelope[T], error) {
	var out Envelope[T]
	dec := json.NewDecoder(bytes.NewReader(body))
	if strict {
		dec.DisallowUnknownFields()
	}
	if err := dec.Decode(&out); err != nil {
		return nil, err
	}
	return &out, nil
}

func get(base, path, token, scenario string) ([]byte, error) {
	req, err := http.NewRequest("GET", base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Platform-Parent-Account-Id", "pa_demo_platform")
	if scenario != "" {
		req.Header.Set("X-Sandbox-Scenario", scenario)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}

func main() {
	strict := flag.Bool("strict", false, "decode with DisallowUnknownFields")
	flag.Parse()
	base := strings.TrimRight(os.Getenv("SANDBOX_URL"), "/")
	mode := "tolerant"
	if *strict {
		mode = "strict"
	}
	form := "grant_type=client_credentials&client_id=sandbox-demo-client&client_secret=sandbox-demo-secret"
	res, err := http.Post(base+"/oauth/token", "application/x-www-form-urlencoded", strings.NewReader(form))
	if err != nil {
		fmt.Println("token:", err)
		os.Exit(1)
	}
	var g grant
	_ = json.NewDecoder(res.Body).Decode(&g) // the tolerant way: the token answer is not the drill here
	res.Body.Close()

	path := "/v1/partnership/vertical-mappings?parent_account_id=pa_demo_platform"
	plain, err := get(base, path, g.AccessToken, "")
	if err != nil {
		fmt.Println("plain:", err)
		os.Exit(1)
	}
	before, err := decode[MappingsData](plain, *strict)
	if err != nil {
		fmt.Printf("%s: the usual answer failed to decode: %v\n", mode, err)
		os.Exit(1)
	}
	drilled, err := get(base, path, g.AccessToken, "additive-changes=7")
	if err != nil {
		fmt.Println("drill:", err)
		os.Exit(1)
	}
	after, err := decode[MappingsData](drilled, *strict)
	if err != nil {
		fmt.Printf("%s: additive-changes broke the client: %v\n", mode, err)
		os.Exit(1)
	}
	same := len(after.Data.VerticalMappings) == len(before.Data.VerticalMappings)
	for i := range before.Data.VerticalMappings {
		same = same && after.Data.VerticalMappings[i] == before.Data.VerticalMappings[i]
	}
	fmt.Printf("%s: additive-changes decoded, %d mappings, the same values: %v\n", mode, len(after.Data.VerticalMappings), same)
	if !same {
		os.Exit(1)
	}
}

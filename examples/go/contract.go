package main

// Every answer checked against the served contract: the sandbox's OpenAPI 3.0 document
// (/openapi-3.0.json, the rendering for tools that read only 3.0) loaded with kin-openapi,
// and each response validated with openapi3filter.ValidateResponse. The check sits in a
// RoundTripper under the OAuth layer, so token answers are checked too.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

type contract struct {
	doc    *openapi3.T
	router routers.Router

	mu        sync.Mutex
	validated map[string]int // operationId -> answers that matched
	problems  []string
}

func loadContract(ctx context.Context, docURL, baseURL string) (*contract, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, docURL, nil)
	if err != nil {
		return nil, err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %d", docURL, res.StatusCode)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", docURL, err)
	}
	if err := doc.Validate(ctx); err != nil {
		return nil, fmt.Errorf("%s is not a valid OpenAPI 3.0 document: %w", docURL, err)
	}
	// Route by the address we actually call (a container may advertise another host).
	doc.Servers = openapi3.Servers{{URL: baseURL}}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	return &contract{doc: doc, router: router, validated: map[string]int{}}, nil
}

func (c *contract) operations() int {
	n := 0
	for _, item := range c.doc.Paths {
		n += len(item.Operations())
	}
	return n
}

// check validates one answer; a mismatch is recorded, not thrown, so the run reports all.
func (c *contract) check(req *http.Request, res *http.Response, body []byte) {
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		c.problem(fmt.Sprintf("%s %s: not in the document: %v", req.Method, req.URL.Path, err))
		return
	}
	err = openapi3filter.ValidateResponse(req.Context(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 res.StatusCode,
		Header:                 res.Header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	})
	if err != nil {
		c.problem(fmt.Sprintf("%s %s answered %d: %v", req.Method, route.Path, res.StatusCode, err))
		return
	}
	c.mu.Lock()
	c.validated[route.Operation.OperationID]++
	c.mu.Unlock()
}

func (c *contract) problem(p string) {
	c.mu.Lock()
	c.problems = append(c.problems, p)
	c.mu.Unlock()
}

// summary: the operations answered and checked, and the operations never exercised.
func (c *contract) summary() (checked []string, missing []string, problems []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, item := range c.doc.Paths {
		for _, op := range item.Operations() {
			if c.validated[op.OperationID] > 0 {
				checked = append(checked, op.OperationID)
			} else {
				missing = append(missing, op.OperationID)
			}
		}
	}
	sort.Strings(checked)
	sort.Strings(missing)
	return checked, missing, append([]string(nil), c.problems...)
}

// validating is the RoundTripper: it reads each answer, checks it, and hands on a copy.
type validating struct {
	base     http.RoundTripper
	contract *contract
}

func (v validating) RoundTrip(req *http.Request) (*http.Response, error) {
	res, err := v.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	v.contract.check(req, res, body)
	res.Body = io.NopCloser(bytes.NewReader(body))
	return res, nil
}

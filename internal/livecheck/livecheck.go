// Package livecheck calls each real platform once, through a running
// BesluitBron (its /platforms/<key>/ routes), and reports per platform
// whether it was reachable, whether the answer has the shape our samples
// have, and which rate-limit headers came back. Optionally it saves the
// answers as new fixtures.
//
// It is an operator's tool (cmd/besluitbron-livecheck): no test calls a
// real platform. Its tests run it against the offline emulators. The shape
// comparison is the emulator tests' own: the shape package's functions,
// held against the same sample files (internal/fixture).
package livecheck

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/internal/fixture"
	"github.com/besluitbron/besluitbron/internal/shape"
)

// MaxBody is the most of an answer the check reads; a one-row probe
// answers in a few kB, so more means something else is answering.
const MaxBody = 4 << 20

// Options configure a run.
type Options struct {
	// Base is BesluitBron's address, e.g. http://localhost:8080; the
	// probes go to Base + "/platforms/<key>" + the probe's path.
	Base string
	// Client sends the requests (default: one with a 60 s timeout).
	Client *http.Client
	// Platforms limits the run to these keys (default: all of Platforms).
	Platforms []string
	// FixtureDir holds the samples (default: internal/fixture's Dir).
	FixtureDir string
	// UserAgent is sent with each probe.
	UserAgent string
	Config
}

// Result is what one probe found.
type Result struct {
	Platform  string `json:"platform"`
	URL       string `json:"url"`
	Reachable bool   `json:"reachable"`
	Status    int    `json:"status,omitempty"`
	// Off is set when BesluitBron answers 410 Gone for the platform: it is
	// switched off there (ORI without BESLUITBRON_ORI_URL) and was not called.
	Off bool `json:"off,omitempty"`
	// Error is why the platform could not be reached or read.
	Error string `json:"error,omitempty"`
	// Basis is what the shape was checked against.
	Basis string `json:"basis"`
	// ShapeChecked is false when there was nothing to check against or no
	// answer to check; ShapeOK then means nothing.
	ShapeChecked bool `json:"shape_checked"`
	ShapeOK      bool `json:"shape_ok"`
	// Missing are paths the samples (or documentation) have and the answer
	// lacks: the shape is then not as expected.
	Missing []string `json:"missing,omitempty"`
	// New are paths the answer has and the samples do not: not an error
	// (a sample shows one item), but what an emulator must not invent until
	// a sample or the documentation shows it.
	New []string `json:"new,omitempty"`
	// RateLimit holds the rate-limit headers of the answer (RateLimit-*,
	// X-RateLimit-*, Retry-After), empty when there were none.
	RateLimit map[string]string `json:"rate_limit_headers"`
	// CacheStatus is BesluitBron's Cache-Status header: the probe asks past
	// the cache, so anything but a miss or bypass means the platform was
	// not actually called.
	CacheStatus string        `json:"cache_status,omitempty"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	Truncated   bool          `json:"truncated,omitempty"`
	// Saved is the fixture file the answer was written to (with -save).
	Saved string `json:"saved,omitempty"`

	body  []byte
	probe Probe
}

// OK reports whether the platform passed: reachable with its shape as
// expected, or switched off in BesluitBron on purpose.
func (r Result) OK() bool {
	if r.Off {
		return true
	}
	return r.Reachable && r.Error == "" && (!r.ShapeChecked || r.ShapeOK)
}

// Run sends each selected probe once, one after the other, and checks the
// answers. An error means the run itself could not start (a bad option or
// a missing sample file); a platform's failure is in its Result.
func Run(ctx context.Context, o Options) ([]Result, error) {
	if o.Base == "" {
		return nil, errors.New("no BesluitBron base URL")
	}
	if o.Client == nil {
		o.Client = &http.Client{Timeout: 60 * time.Second}
	}
	if o.UserAgent == "" {
		o.UserAgent = "besluitbron-livecheck"
	}
	probes, err := Probes(o.Config)
	if err != nil {
		return nil, err
	}
	want := map[string]bool{}
	for _, k := range o.Platforms {
		known := false
		for _, p := range Platforms() {
			known = known || p == k
		}
		if !known {
			return nil, fmt.Errorf("unknown platform %q: use %s", k, strings.Join(Platforms(), ", "))
		}
		want[k] = true
	}
	var out []Result
	for _, p := range probes {
		if len(want) > 0 && !want[p.Platform] {
			continue
		}
		samples, err := loadSamples(o.FixtureDir, p)
		if err != nil {
			return nil, err
		}
		out = append(out, check(ctx, o, p, samples))
	}
	return out, nil
}

func loadSamples(dir string, p Probe) ([][]byte, error) {
	var out [][]byte
	for _, s := range p.Samples {
		b, err := fixture.ReadFrom(dir, p.Platform, s.File)
		if err != nil {
			return nil, fmt.Errorf("sample %s/%s: %v (give -fixtures, the shared fixtures directory)", p.Platform, s.File, err)
		}
		out = append(out, b)
	}
	return out, nil
}

func check(ctx context.Context, o Options, p Probe, samples [][]byte) Result {
	r := Result{Platform: p.Platform, Basis: p.Basis(), probe: p, RateLimit: map[string]string{}}
	r.URL = strings.TrimRight(o.Base, "/") + "/platforms/" + p.Platform + p.Request.Path
	var body io.Reader
	if p.Request.Body != nil {
		body = bytes.NewReader(p.Request.Body)
	}
	req, err := http.NewRequestWithContext(ctx, p.Request.Method, r.URL, body)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	if p.Request.ContentType != "" {
		req.Header.Set("Content-Type", p.Request.ContentType)
	}
	// Past BesluitBron's cache: a stored answer says nothing about the
	// platform today.
	req.Header.Set("Cache-Control", "no-store")
	req.Header.Set("User-Agent", o.UserAgent)
	start := time.Now()
	resp, err := o.Client.Do(req)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	defer resp.Body.Close()
	r.Status = resp.StatusCode
	r.CacheStatus = resp.Header.Get("Cache-Status")
	for name, v := range resp.Header {
		l := strings.ToLower(name)
		if strings.Contains(l, "ratelimit") || strings.Contains(l, "rate-limit") || l == "retry-after" {
			r.RateLimit[name] = strings.Join(v, ", ")
		}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, MaxBody+1))
	r.Elapsed = time.Since(start)
	if len(b) > MaxBody {
		b, r.Truncated = b[:MaxBody], true
	}
	r.body = b
	if err != nil {
		r.Error = "reading the answer: " + err.Error()
		return r
	}
	switch {
	case resp.StatusCode == http.StatusGone:
		r.Off = true
		r.Error = "switched off in BesluitBron (410): " + oneLine(b)
		return r
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		// BesluitBron answered, but the platform did not give a usable
		// answer (or BesluitBron has no route for it).
		r.Error = fmt.Sprintf("answered %d: %s", resp.StatusCode, oneLine(b))
		return r
	}
	r.Reachable = true
	if r.Truncated {
		r.Error = fmt.Sprintf("answer larger than %d bytes: not a one-row answer", MaxBody)
		return r
	}
	if p.Absent != nil && p.Absent(b) {
		// Nothing to hold against the samples: the platform answered
		// that it has no such record.
		r.Error = "not found: the platform holds no such record; " + p.AbsentHint
		return r
	}
	compare(&r, p, samples)
	return r
}

// compare holds the answer against the samples (or the documented shape):
// one way for Missing, the other way for New, both with the options the
// emulator tests use.
func compare(r *Result, p Probe, samples [][]byte) {
	var wants [][]byte
	var opts [][]shape.Option
	for i, s := range p.Samples {
		wants, opts = append(wants, samples[i]), append(opts, s.Opts)
	}
	if len(wants) == 0 && p.Documented != nil {
		wants, opts = [][]byte{p.Documented}, [][]shape.Option{{shape.NullOK()}}
	}
	if len(wants) == 0 {
		return
	}
	r.ShapeChecked = true
	json := shape.IsJSON(r.body)
	newSeen := map[string]bool{}
	for i, w := range wants {
		if json != shape.IsJSON(w) {
			r.Missing = append(r.Missing, fmt.Sprintf("(root): answer is %s, sample %s is %s", format(json), fileOf(p, i), format(!json)))
			continue
		}
		var probs []string
		if json {
			probs = shape.CompareJSON(r.body, w, opts[i]...)
		} else {
			probs = shape.CompareXML(r.body, w, opts[i]...)
		}
		r.Missing = append(r.Missing, probs...)
		for _, e := range shape.CompareExact(r.body, w, opts[i]...) {
			if strings.Contains(e, "not in want") && !newSeen[e] {
				newSeen[e] = true
				r.New = append(r.New, strings.Replace(e, "not in want", "not in the sample", 1))
			}
		}
	}
	sort.Strings(r.New)
	r.ShapeOK = len(r.Missing) == 0
}

func format(json bool) string {
	if json {
		return "JSON"
	}
	return "XML"
}

func fileOf(p Probe, i int) string {
	if i < len(p.Samples) {
		return p.Samples[i].File
	}
	return "documented shape"
}

// oneLine shortens an error body for the report.
func oneLine(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return s
}

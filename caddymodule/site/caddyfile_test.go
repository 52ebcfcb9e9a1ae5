package site

import (
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/platforms"
	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	d := caddyfile.NewTestDispenser(`besluitbron_site {
		platforms obv rechtspraak
		deadline 5s
		languages en nl
		limit 20
		page_chars 4000
		status_refresh 30s
		tk_odata_root /OData/v4/2.0
	}`)
	var h Handler
	if err := h.UnmarshalCaddyfile(d); err != nil {
		t.Fatal(err)
	}
	if strings.Join(h.Platforms, " ") != "obv rechtspraak" || time.Duration(h.Deadline) != 5*time.Second ||
		strings.Join(h.Languages, " ") != "en nl" || h.Limit != 20 || h.PageChars != 4000 ||
		time.Duration(h.StatusRefresh) != 30*time.Second || h.PlatformOptions["tk"]["odata_root"][0] != "/OData/v4/2.0" {
		t.Errorf("parsed %+v", h)
	}
	if err := h.Validate(); err != nil {
		t.Errorf("valid config refused: %v", err)
	}
	for _, bad := range []string{
		"besluitbron_site extra",
		"besluitbron_site {\n nope 1\n}",
		"besluitbron_site {\n deadline soon\n}",
		"besluitbron_site {\n limit ten\n}",
		"besluitbron_site {\n platforms\n}",
		"besluitbron_site {\n limit 1\n limit 2\n}",
		"besluitbron_site {\n deadline 1s 2s\n}",
		"besluitbron_site {\n tk_odata_root\n}",
		"besluitbron_site {\n obv_odata_root /OData/v5\n}",
	} {
		var h Handler
		if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// Every bound is enforced with a message that names it.
func TestValidateBounds(t *testing.T) {
	ok := func() Handler {
		return Handler{Platforms: []string{"obv"}, Deadline: caddy.Duration(8 * time.Second), Languages: []string{"nl"},
			Limit: 10, PageChars: 6000, StatusRefresh: caddy.Duration(15 * time.Second)}
	}
	if h := ok(); h.Validate() != nil {
		t.Fatal(h.Validate())
	}
	for name, c := range map[string]struct {
		mod  func(*Handler)
		want string
	}{
		"platform": {func(h *Handler) { h.Platforms = []string{"nope"} }, "unknown platform"},
		"twice":    {func(h *Handler) { h.Platforms = []string{"obv", "obv"} }, "twice"},
		"deadline": {func(h *Handler) { h.Deadline = caddy.Duration(time.Hour) }, "deadline"},
		"language": {func(h *Handler) { h.Languages = []string{"fr"} }, "language"},
		"limit":    {func(h *Handler) { h.Limit = 25 }, "limit"},
		"chars":    {func(h *Handler) { h.PageChars = 10 }, "page_chars"},
		"refresh":  {func(h *Handler) { h.StatusRefresh = caddy.Duration(time.Second) }, "status_refresh"},
		"tk root": {func(h *Handler) {
			h.PlatformOptions = map[string]platforms.Options{"tk": {"odata_root": {"OData/"}}}
		}, "tk options: odata_root"},
		"lang twice": {func(h *Handler) { h.Languages = []string{"nl", "nl"} }, "twice"},
	} {
		h := ok()
		c.mod(&h)
		err := h.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, c.want)
		}
	}
}

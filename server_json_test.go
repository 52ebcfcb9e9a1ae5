package besluitbron_test

import (
	"encoding/json"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/caddymodule/version"
)

// server.json is what an operator publishes to the official MCP Registry
// (docs/operations.md, "Publishing an instance"): it keeps the registry's
// rules (a reverse-DNS name with one slash, a description of at most 100
// characters, a semantic version, a public https remote), names this
// source tree's version, and points at a connector the default Caddyfile
// serves.
func TestServerJSONIsPublishable(t *testing.T) {
	b, err := os.ReadFile("server.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Schema      string `json:"$schema"`
		Name        string `json:"name"`
		Description string `json:"description"`
		Version     string `json:"version"`
		Remotes     []struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		} `json:"remotes"`
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if err := dec.Decode(&s); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(s.Schema, "https://static.modelcontextprotocol.io/schemas/") {
		t.Errorf("$schema %q is not the registry's", s.Schema)
	}
	if !regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`).MatchString(s.Name) || !strings.Contains(strings.Split(s.Name, "/")[0], ".") {
		t.Errorf("name %q is not reverse-DNS/name", s.Name)
	}
	if n := len([]rune(s.Description)); n == 0 || n > 100 {
		t.Errorf("description has %d characters; the registry takes 1 to 100", n)
	}
	if s.Version != version.Base {
		t.Errorf("version %q, the source tree is %s", s.Version, version.Base)
	}
	caddyfile, err := os.ReadFile("Caddyfile")
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Remotes) != 1 {
		t.Fatalf("%d remotes", len(s.Remotes))
	}
	r := s.Remotes[0]
	u, err := url.Parse(r.URL)
	if err != nil || r.Type != "streamable-http" || u.Scheme != "https" || u.Host == "" {
		t.Errorf("remote %+v: want a public https streamable-http URL", r)
	}
	if !strings.Contains(string(caddyfile), "handle "+u.Path+" ") && !strings.Contains(string(caddyfile), "handle "+u.Path+"\n") {
		t.Errorf("remote path %s is no connector of the default Caddyfile", u.Path)
	}
}

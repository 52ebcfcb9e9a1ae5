// Package fuzzcheck holds what the fuzz targets share: seeds from the real
// platform payloads (internal/fixture) and from the Caddyfiles and docs,
// and the checks every parser's output must pass whatever its input.
package fuzzcheck

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/internal/fixture"
)

// AddFixtures seeds f with the named fixtures of platform, or with every
// fixture of platform when no name is given. f's fuzz function must take
// one []byte. A missing fixture fails the target (fixture.Read).
func AddFixtures(f *testing.F, platform string, names ...string) {
	f.Helper()
	for _, b := range Fixtures(f, platform, names...) {
		f.Add(b)
	}
}

// Fixtures returns the named fixtures of platform, or all of them.
func Fixtures(f *testing.F, platform string, names ...string) [][]byte {
	f.Helper()
	if len(names) == 0 {
		entries, err := os.ReadDir(filepath.Join(fixture.Dir(), platform))
		if err != nil || len(entries) == 0 {
			f.Fatalf("no fixtures for %s under %s: %v", platform, fixture.Dir(), err)
		}
		for _, e := range entries {
			if !e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	var out [][]byte
	for _, n := range names {
		out = append(out, fixture.Read(f, platform, n))
	}
	return out
}

// CaddyfileBlocks returns every use of directive in the repository's
// Caddyfiles and docs/*.md: the line that starts with it and, when it opens a
// block, everything up to the matching brace. They seed the directive's
// parser with the syntax operators actually write. At least one is found,
// or the target fails.
func CaddyfileBlocks(f *testing.F, directive string) []string {
	f.Helper()
	root := repoRoot(f)
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	var out []string
	for _, name := range append([]string{filepath.Join(root, "Caddyfile"), filepath.Join(root, "Caddyfile.offline")}, docs...) {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatalf("reading %s: %v", name, err)
		}
		out = append(out, blocks(string(b), directive)...)
	}
	if len(out) == 0 {
		f.Fatalf("no %s directive in the Caddyfiles or docs/*.md", directive)
	}
	return out
}

// blocks finds directive's uses in text (see CaddyfileBlocks).
func blocks(text, directive string) []string {
	lines := strings.Split(text, "\n")
	var out []string
	for i := 0; i < len(lines); i++ {
		fields := strings.Fields(lines[i])
		if len(fields) == 0 || fields[0] != directive {
			continue
		}
		if !strings.HasSuffix(strings.TrimSpace(lines[i]), "{") {
			out = append(out, strings.TrimSpace(lines[i]))
			continue
		}
		depth, j := 0, i
		for ; j < len(lines); j++ {
			depth += strings.Count(lines[j], "{") - strings.Count(lines[j], "}")
			if depth <= 0 {
				break
			}
		}
		if j < len(lines) {
			out = append(out, strings.Join(lines[i:j+1], "\n"))
		}
	}
	return out
}

func repoRoot(f *testing.F) string {
	f.Helper()
	dir, err := os.Getwd()
	if err != nil {
		f.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		if filepath.Dir(dir) == dir {
			f.Fatal("go.mod not found above the working directory")
		}
		dir = filepath.Dir(dir)
	}
}

// ValidUTF8 fails t when any string reachable from v (fields, slices,
// maps, pointers) is not valid UTF-8: what a parser hands on goes into a
// JSON answer to a model, and a text cut inside a character is garbled.
func ValidUTF8(t *testing.T, v any) {
	t.Helper()
	walk(t, reflect.ValueOf(v), "")
}

func walk(t *testing.T, v reflect.Value, path string) {
	t.Helper()
	switch v.Kind() {
	case reflect.String:
		if !utf8.ValidString(v.String()) {
			t.Fatalf("%s is not valid UTF-8: %q", path, v.String())
		}
	case reflect.Pointer, reflect.Interface:
		if !v.IsNil() {
			walk(t, v.Elem(), path)
		}
	case reflect.Slice, reflect.Array:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return // bytes are not text
		}
		for i := 0; i < v.Len(); i++ {
			walk(t, v.Index(i), path+"["+strconv.Itoa(i)+"]")
		}
	case reflect.Map:
		it := v.MapRange()
		for it.Next() {
			walk(t, it.Key(), path+"{key}")
			walk(t, it.Value(), path+"{"+it.Key().String()+"}")
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				walk(t, v.Field(i), path+"."+v.Type().Field(i).Name)
			}
		}
	}
}

// Error fails t when a parser reported an error without saying anything:
// bad input gets a clear error.
func Error(t *testing.T, err error) {
	t.Helper()
	if err != nil && strings.TrimSpace(err.Error()) == "" {
		t.Fatalf("an error with an empty message (%T)", err)
	}
}

// Parse runs a parser twice on the same input and fails t when it
// reported an empty error, when the two runs disagree (output that depends
// on map order or on state splits the cache and confuses a model), or when
// a result's text is not valid UTF-8. It returns the first run's result.
func Parse[T any](t *testing.T, name string, parse func() (T, error)) (T, error) {
	t.Helper()
	v, err := parse()
	Error(t, err)
	v2, err2 := parse()
	if (err == nil) != (err2 == nil) || (err != nil && err.Error() != err2.Error()) {
		t.Fatalf("%s: two runs on the same input disagree: %v, then %v", name, err, err2)
	}
	if err != nil {
		return v, err
	}
	if !reflect.DeepEqual(v, v2) {
		t.Fatalf("%s: two runs on the same input disagree:\n%#v\n%#v", name, v, v2)
	}
	ValidUTF8(t, v)
	return v, nil
}

// Serve sends an adapter's request to an emulator handler in process and
// returns the answer's body, whatever its status (error bodies are seeds
// too). It seeds the parsers of platforms without recorded payloads with
// the emulator's answers, whose shapes come from the platform's docs.
func Serve(h http.Handler, r adapters.Request) []byte {
	req := httptest.NewRequest(r.Method, "http://emulator.test"+r.Path, bytes.NewReader(r.Body))
	if r.ContentType != "" {
		req.Header.Set("Content-Type", r.ContentType)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Body.Bytes()
}

package tk

import (
	"errors"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
)

// SchemaOf reads $metadata once per root and MemoTTL; a failed call
// passes through, an unreadable answer is a *MetadataError and is not
// kept.
func TestSchemaOfRemembersPerRoot(t *testing.T) {
	var memo adapters.Memo
	calls := 0
	body := csdl(map[string][]string{"Document": {"Id", "Titel"}})
	get := func(r adapters.Request) ([]byte, error) {
		calls++
		if r.Path != DefaultRoot+"/$metadata" {
			t.Fatalf("asked %q", r.Path)
		}
		return body, nil
	}
	t0 := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	for _, at := range []time.Duration{0, time.Minute, adapters.MemoTTL} {
		s, err := SchemaOf(&memo, DefaultRoot, t0.Add(at), get)
		if err != nil || s == nil {
			t.Fatal(err)
		}
	}
	if calls != 1 {
		t.Fatalf("%d $metadata calls within the memo's life, want 1", calls)
	}
	if _, err := SchemaOf(&memo, DefaultRoot, t0.Add(adapters.MemoTTL+time.Second), get); err != nil || calls != 2 {
		t.Fatalf("after the memo's life: %v, %d calls", err, calls)
	}

	var fresh adapters.Memo
	down := errors.New("route answered 503")
	if _, err := SchemaOf(&fresh, DefaultRoot, t0, func(adapters.Request) ([]byte, error) { return nil, down }); !errors.Is(err, down) {
		t.Fatalf("a failed call: %v", err)
	}
	_, err := SchemaOf(&fresh, DefaultRoot, t0, func(adapters.Request) ([]byte, error) { return []byte("<html>not metadata"), nil })
	var bad *MetadataError
	if !errors.As(err, &bad) {
		t.Fatalf("an unreadable answer: %v, want a *MetadataError", err)
	}
	if _, ok := fresh.Get("tk:schema:"+DefaultRoot, t0); ok {
		t.Fatal("an unreadable answer was kept")
	}
}

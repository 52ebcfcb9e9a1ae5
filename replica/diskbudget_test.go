package replica

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The budget holds the harvest once the folder reaches it, says so in
// words that name no folder, and lets it go on once there is room; no
// budget never measures.
func TestDiskBudget(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, n int) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), make([]byte, n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	asked := 0
	next := func(context.Context) error { asked++; return nil }
	gate := DiskBudget(dir, 4096, next)

	write("index/store/a.zap", 1000)
	if err := gate(context.Background()); err != nil || asked != 1 {
		t.Fatalf("under budget: %v, next asked %d", err, asked)
	}
	write("index/store/b.zap", 3096)
	err := gate(context.Background())
	var over *DiskBudgetError
	if !errors.As(err, &over) || !errors.Is(err, ErrDiskBudget) || over.Used != 4096 || asked != 1 {
		t.Fatalf("at the budget: %v, next asked %d", err, asked)
	}
	if msg := err.Error(); !strings.Contains(msg, "4.0 KiB used of a max_disk of 4.0 KiB") || strings.Contains(msg, dir) {
		t.Fatalf("message %q", msg)
	}
	if err := os.Remove(filepath.Join(dir, "index/store/b.zap")); err != nil {
		t.Fatal(err)
	}
	if err := gate(context.Background()); err != nil || asked != 2 {
		t.Fatalf("room again: %v, next asked %d", err, asked)
	}
	if err := DiskBudget(filepath.Join(dir, "absent"), 0, next)(context.Background()); err != nil {
		t.Fatalf("no budget: %v", err)
	}
}

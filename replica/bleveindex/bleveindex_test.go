package bleveindex

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/besluitbron/besluitbron/replica"
)

// toy is a mapping of a platform's documents: a title searched, a kind
// kept. wide adds a field, so its stamp differs.
func toy(wide bool) Config {
	im := mapping.NewIndexMapping()
	doc := mapping.NewDocumentStaticMapping()
	doc.AddFieldMappingsAt("title", mapping.NewTextFieldMapping())
	doc.AddFieldMappingsAt("kind", mapping.NewKeywordFieldMapping())
	if wide {
		doc.AddFieldMappingsAt("words", mapping.NewNumericFieldMapping())
	}
	im.DefaultMapping = doc
	return Config{What: "toy index", Mapping: im, Format: "toy-v1"}
}

type toyDoc struct {
	Title string `json:"title"`
	Kind  string `json:"kind"`
}

func open(t *testing.T, dir string, c Config) (*Index, replica.OpenReport) {
	t.Helper()
	ix, report, err := Open(dir, c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix, report
}

func ids(t *testing.T, ix *Index, words string) []string {
	t.Helper()
	res, err := ix.Search(context.Background(), bleve.NewSearchRequest(bleve.NewMatchQuery(words)))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, h := range res.Hits {
		out = append(out, h.ID)
	}
	return out
}

// Upserts (a struct or a map) and deletes land with their checkpoint in
// one batch, and both are there after a reopen; a later op on the same id
// wins.
func TestApplyUpsertsDeletesAndKeepsTheCheckpoint(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ix, report := open(t, dir, toy(false))
	if !report.Created || report.Stamp != Stamp("toy-v1", toy(false).Mapping) || !strings.HasPrefix(report.Stamp, "toy-v1-") {
		t.Fatalf("report %+v", report)
	}
	if cp := ix.Checkpoint(); cp != nil {
		t.Fatalf("a new index has checkpoint %q", cp)
	}
	if err := ix.Apply([]Op{
		Upsert("a", toyDoc{Title: "woningbouw in Utrecht", Kind: "motie"}),
		Upsert("b", map[string]any{"title": "woningbouw in Zwolle", "kind": "besluit"}),
		Upsert("c", toyDoc{Title: "fietspaden"}),
	}, []byte("page 1")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Apply([]Op{Delete("b"), Delete("never there"), Upsert("c", toyDoc{Title: "woningbouw"}), Delete("c")}, []byte("page 2")); err != nil {
		t.Fatal(err)
	}
	if got := ids(t, ix, "woningbouw"); len(got) != 1 || got[0] != "a" {
		t.Fatalf("found %v, want [a]", got)
	}
	if err := ix.Apply([]Op{{Doc: toyDoc{Title: "no id"}}}, []byte("page 3")); !errors.Is(err, ErrNoID) || ix.Err() != nil {
		t.Fatalf("an op without an id: %v, index %v", err, ix.Err())
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}

	ix, report = open(t, dir, toy(false))
	if report.Created || report.Rebuilt {
		t.Fatalf("reopened %+v", report)
	}
	if cp := string(ix.Checkpoint()); cp != "page 2" {
		t.Fatalf("checkpoint %q after a reopen, want page 2", cp)
	}
	if n, err := ix.Count(); err != nil || n != 1 {
		t.Fatalf("%d documents, %v", n, err)
	}
}

// An index of another mapping is rebuilt empty, checkpoint and all.
func TestAnotherMappingRebuilds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ix, _ := open(t, dir, toy(false))
	if err := ix.Apply([]Op{Upsert("a", toyDoc{Title: "woningbouw"})}, []byte("page 1")); err != nil {
		t.Fatal(err)
	}
	ix.Close()

	ix, report := open(t, dir, toy(true))
	if !report.Rebuilt || !strings.Contains(report.Reason, Stamp("toy-v1", toy(false).Mapping)) {
		t.Fatalf("report %+v, want Rebuilt naming the old stamp", report)
	}
	if n, err := ix.Count(); err != nil || n != 0 || ix.Checkpoint() != nil {
		t.Fatalf("rebuilt index holds %d documents (%v), checkpoint %q", n, err, ix.Checkpoint())
	}
	ix.Close()
	if ownErr := ownFolder(filepath.Join(dir, DirName)); ownErr != nil {
		t.Fatalf("an index of ours is not recognised as ours: %v", ownErr)
	}
}

// A folder holding files no index writes is refused and left alone.
func TestForeignFolderIsRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	notes := filepath.Join(dir, DirName, "notes.txt")
	if err := os.MkdirAll(filepath.Dir(notes), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	ix, report, err := Open(dir, toy(false))
	if err == nil {
		ix.Close()
		t.Fatalf("opened a foreign folder: %+v", report)
	}
	var ue *replica.UnavailableError
	if !errors.As(err, &ue) || !errors.Is(err, replica.ErrForeign) || ue.What != "toy index" || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("error %v, want ErrForeign naming notes.txt", err)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Fatalf("the user's file: %q %v", b, err)
	}
}

// A closed index says so, to searches and writes alike.
func TestClosedIndexIsUnavailable(t *testing.T) {
	t.Parallel()
	ix, _ := open(t, t.TempDir(), toy(false))
	ix.Close()
	if _, err := ix.Search(context.Background(), bleve.NewSearchRequest(bleve.NewMatchAllQuery())); !errors.Is(err, replica.ErrClosed) {
		t.Fatalf("search: %v", err)
	}
	if err := ix.Apply(nil, nil); !errors.Is(err, replica.ErrClosed) {
		t.Fatalf("apply: %v", err)
	}
}

// An operator's rebuild: Remove takes away a closed index of ours, the
// next Open makes a new, empty one, and the folder's other files stay;
// an index folder holding a file of someone else's is left whole.
func TestRemoveTakesOnlyAnIndexOfOurs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ix, _, err := Open(dir, toy(false))
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Apply([]Op{Upsert("a", toyDoc{Title: "stikstof"})}, []byte("cp")); err != nil {
		t.Fatal(err)
	}
	if err := ix.Close(); err != nil {
		t.Fatal(err)
	}
	beside := filepath.Join(dir, "README")
	if err := os.WriteFile(beside, []byte("ours"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir, "toy index"); err != nil {
		t.Fatal(err)
	}
	fresh, report := open(t, dir, toy(false))
	if !report.Created || fresh.Checkpoint() != nil || len(ids(t, fresh, "stikstof")) != 0 {
		t.Fatalf("after Remove: %+v, checkpoint %q", report, fresh.Checkpoint())
	}
	if _, err := os.Stat(beside); err != nil {
		t.Fatalf("the file beside the index: %v", err)
	}
	if err := fresh.Close(); err != nil {
		t.Fatal(err)
	}

	notes := filepath.Join(dir, DirName, "notes.txt")
	if err := os.WriteFile(notes, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Remove(dir, "toy index"); !errors.Is(err, replica.ErrForeign) || !strings.Contains(err.Error(), "notes.txt") {
		t.Fatalf("Remove of a folder with a foreign file: %v", err)
	}
	if b, err := os.ReadFile(notes); err != nil || string(b) != "mine" {
		t.Fatalf("the user's file: %q %v", b, err)
	}
	if err := Remove(filepath.Join(dir, "absent"), "toy index"); err != nil {
		t.Fatalf("Remove of no index: %v", err)
	}
}

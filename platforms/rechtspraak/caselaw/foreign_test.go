package caselaw

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/replica/bleveindex"
)

// Open removes an index folder to rebuild it only when the folder is an
// index of ours (replica/bleveindex/open.go, ownFolder); anything else
// there is a user's and stays, byte for byte, and the open refuses with
// ErrForeign.
func TestOpenNeverRemovesWhatIsNotOurs(t *testing.T) {
	t.Parallel()
	userFile := []byte("Mijn aantekeningen: niet weggooien.\n")
	for name, arrange := range map[string]func(t *testing.T, dir string){
		"a user's folder named index": func(t *testing.T, dir string) {
			writeTree(t, dir, map[string][]byte{"index/notes.txt": userFile, "index/foto's/zee.jpg": []byte{0xff, 0xd8, 0xff}})
		},
		"a plain file named index": func(t *testing.T, dir string) {
			writeTree(t, dir, map[string][]byte{"index": userFile})
		},
		"a user's folder named index.new": func(t *testing.T, dir string) {
			writeTree(t, dir, map[string][]byte{"index.new/notes.txt": userFile})
		},
		// Hostile look-alikes: bleve's names beside a user's file.
		"bleve's metadata beside a user's file": func(t *testing.T, dir string) {
			writeTree(t, dir, map[string][]byte{"index/index_meta.json": []byte(`{"storage":"scorch"}`), "index/notes.txt": userFile})
		},
		"a user's file inside store": func(t *testing.T, dir string) {
			writeTree(t, dir, map[string][]byte{"index/index_meta.json": []byte(`{"storage":"scorch"}`),
				"index/store/root.bolt": []byte("bolt"), "index/store/backup.tar": userFile})
		},
		"an old index of ours with a user's file in it": func(t *testing.T, dir string) {
			ix, _, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			mustApply(t, ix, Checkpoint{NextFrom: 1}, ruling(1, "Huurrecht."))
			ix.Close()
			writeTree(t, dir, map[string][]byte{"index/" + bleveindex.StampFileName: []byte("caselaw-v0-0123456789abcdef"), "index/notes.txt": userFile})
		},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			arrange(t, dir)
			before := snapshotTree(t, dir)

			ix, report, err := Open(dir)
			if err == nil {
				ix.Close()
				t.Fatalf("opened over a folder that is not ours: %+v", report)
			}
			ue := wantUnavailable(t, err, ErrForeign)
			if got := ue.Public(); got != "index unavailable: directory not ours" {
				t.Errorf("public text %q", got)
			}
			if !strings.Contains(err.Error(), "move those files away") {
				t.Errorf("error %q does not tell the operator what to do", err)
			}
			if name != "a plain file named index" && !strings.Contains(err.Error(), "notes.txt") && !strings.Contains(err.Error(), "backup.tar") {
				t.Errorf("error %q does not name the file that is not ours", err)
			}
			if report.Rebuilt || report.Created {
				t.Errorf("report %+v after a refusal", report)
			}
			if after := snapshotTree(t, dir); !sameTree(before, after) {
				t.Fatalf("the folder changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// The honest cases beside them: an empty index folder is made an index;
// an index of ours without a stamp or with another one is rebuilt
// (TestAnotherMappingStampRebuilds), and so is an unfinished build
// (TestOpenClearsAnUnfinishedBuild).
func TestOpenTakesAnEmptyFolder(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, bleveindex.DirName), 0o755); err != nil {
		t.Fatal(err)
	}
	ix, report, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !report.Created || report.Rebuilt {
		t.Fatalf("report %+v, want Created", report)
	}
	mustApply(t, ix, Checkpoint{NextFrom: 1}, ruling(1, "Huurrecht."))
	if n := count(t, ix); n != 1 {
		t.Fatalf("%d decisions", n)
	}
}

// An index folder of an older build, stamp and all, is recognised as ours
// and rebuilt, also when bleve's files are all there is (no stamp yet).
func TestOpenRebuildsOnlyOurOwnFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ix, _, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for n := range 3 {
		mustApply(t, ix, Checkpoint{NextFrom: n + 1}, ruling(n, "Huurrecht."))
	}
	ix.Close()
	writeTree(t, dir, map[string][]byte{"index/" + bleveindex.StampFileName: []byte("caselaw-v0-0123456789abcdef")})
	ix, report, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if !report.Rebuilt || count(t, ix) != 0 {
		t.Fatalf("an old index of ours was not rebuilt: %+v", report)
	}
}

// writeTree writes files (paths relative to dir, "/"-separated).
func writeTree(t *testing.T, dir string, files map[string][]byte) {
	t.Helper()
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		writeFile(t, p, b)
	}
}

// snapshotTree is every path under dir with its mode and a hash of its
// bytes.
func snapshotTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out[rel] = info.Mode().String()
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sum := sha256.Sum256(b)
			out[rel] += " " + hex.EncodeToString(sum[:])
		}
		return nil
	})
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	return out
}

func sameTree(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

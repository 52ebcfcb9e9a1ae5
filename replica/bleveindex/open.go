package bleveindex

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/besluitbron/besluitbron/replica"
)

// The names under dir. The index is built under NewDirName and renamed
// into place with its stamp, so DirName never holds a half-made index.
const (
	DirName            = "index"
	NewDirName         = "index.new"
	StampFileName      = "besluitbron-mapping-stamp"
	GenerationFileName = "besluitbron-generation"
	checkpointKey      = "besluitbron/harvest-checkpoint"
	generationKey      = "besluitbron/generation"
	lockWaitTimeout    = "2s" // bolt's wait for another process's lock
)

// Config is what a platform gives for its index: the mapping of its
// documents and the name of their format.
type Config struct {
	// What names the index in the operator's messages ("case-law
	// index"); "" reads "index".
	What string
	// Mapping is the index's one mapping. Open builds a new index with
	// it; an index on disk is read with the mapping it was written with,
	// which the stamp says is this one.
	Mapping *mapping.IndexMappingImpl
	// Format names what the mapping JSON does not show: how documents
	// are built and what the checkpoint means ("caselaw-v1"). Change it
	// when either changes, so an index written the old way is rebuilt
	// rather than misread. It begins the stamp (Stamp).
	Format string
}

// Stamp names the mapping and document format an index was written
// with: format and a hash of the mapping's JSON.
func Stamp(format string, im *mapping.IndexMappingImpl) string {
	js, err := json.Marshal(im)
	if err != nil {
		panic(err) // the mapping is plain data
	}
	sum := sha256.Sum256(js)
	return format + "-" + hex.EncodeToString(sum[:12])
}

// Open opens the index under dir, creating it when there is none. An index
// whose mapping stamp differs from c's is rebuilt empty, never read
// (report.Rebuilt says so). Files that cannot be read as an index give an
// *replica.UnavailableError of kind ErrCorrupt; another process holding
// the index gives ErrLocked. A folder without our stamp is removed only
// when it holds nothing but bleve's and our files (ownFolder); otherwise
// Open refuses with ErrForeign and leaves it as it is.
func Open(dir string, c Config) (*Index, replica.OpenReport, error) {
	report := replica.OpenReport{Stamp: Stamp(c.Format, c.Mapping)}
	fail := func(kind, err error) (*Index, replica.OpenReport, error) {
		return nil, report, unavailable(c.What, dir, kind, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(replica.ErrWriteFailed, err)
	}
	path := filepath.Join(dir, DirName)
	// A build that died halfway leaves index.new; it is removed only if it
	// holds nothing but what a build writes.
	if err := ownFolder(filepath.Join(dir, NewDirName)); err != nil {
		return fail(replica.ErrForeign, err)
	}
	if err := os.RemoveAll(filepath.Join(dir, NewDirName)); err != nil {
		return fail(replica.ErrWriteFailed, err)
	}

	switch found, err := os.ReadFile(filepath.Join(path, StampFileName)); {
	case err == nil && string(found) == report.Stamp:
	case errors.Is(err, os.ErrNotExist):
		if empty, emptyErr := emptyOrAbsent(path); emptyErr == nil && empty {
			report.Created = true
		} else {
			report.Rebuilt = true
			report.Reason = "the index has no mapping stamp (written by an older build)"
		}
	case err != nil:
		if ownErr := ownFolder(path); ownErr != nil {
			return fail(replica.ErrForeign, ownErr)
		}
		return fail(replica.ErrCorrupt, err)
	default:
		report.Rebuilt = true
		report.Reason = fmt.Sprintf("the index has mapping stamp %.80q, this build writes %s", strings.TrimSpace(string(found)), report.Stamp)
	}
	if report.Rebuilt {
		// A rebuild removes the folder: only when it is an index of ours.
		if err := ownFolder(path); err != nil {
			report.Rebuilt, report.Reason = false, ""
			return fail(replica.ErrForeign, err)
		}
	}
	if report.Created || report.Rebuilt {
		if err := create(dir, c.Mapping, report.Stamp); err != nil {
			return fail(replica.ErrWriteFailed, err)
		}
	}

	bl, err := openBleve(path)
	if err != nil {
		if errors.Is(err, bolterrors.ErrTimeout) {
			return fail(replica.ErrLocked, err)
		}
		return fail(replica.ErrCorrupt, err)
	}
	i := &Index{what: c.What, dir: dir, bl: bl, storePath: filepath.Join(path, "store")}
	if err := i.load(); err != nil {
		_ = bl.Close()
		return fail(replica.ErrCorrupt, err)
	}
	watch(i)
	return i, report, nil
}

// create builds an empty index with its stamp beside dir/index and renames
// it into place, replacing whatever was there.
func create(dir string, im *mapping.IndexMappingImpl, stamp string) error {
	tmp := filepath.Join(dir, NewDirName)
	bl, err := bleve.NewUsing(tmp, im, bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, nil)
	if err != nil {
		return err
	}
	if err := bl.Close(); err != nil {
		return err
	}
	if err := writeFileSynced(filepath.Join(tmp, StampFileName), []byte(stamp)); err != nil {
		return err
	}
	path := filepath.Join(dir, DirName)
	if err := os.RemoveAll(path); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(dir)
}

// The names an index folder of ours holds: bleve's (its metadata file and
// scorch's store of a bolt root and segment files) and ours.
var (
	ownNames      = []string{"index_meta.json", "store", StampFileName, GenerationFileName, GenerationFileName + ".tmp"}
	ownStoreNames = regexp.MustCompile(`^(root\.bolt|[0-9a-f]+\.zap)$`)
)

// ownFolder returns nil when path is absent or a folder that holds only
// the files an index of ours is made of (ownNames), so removing it loses
// nothing but an index; otherwise an error naming what else is there. A
// user's file, a folder of another program, or a plain file named like
// the index are never ours.
func ownFolder(path string) error {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !info.IsDir():
		return fmt.Errorf("%s is a %s, not an index folder", path, info.Mode().Type())
	}
	var foreign []string
	entries, err := os.ReadDir(path)
	if err != nil {
		return err
	}
	for _, e := range entries {
		switch name := e.Name(); {
		case name == "store" && e.IsDir():
			inStore, err := os.ReadDir(filepath.Join(path, name))
			if err != nil {
				return err
			}
			for _, f := range inStore {
				if !f.Type().IsRegular() || !ownStoreNames.MatchString(f.Name()) {
					foreign = append(foreign, filepath.Join(name, f.Name()))
				}
			}
		case !slices.Contains(ownNames, name) || !e.Type().IsRegular():
			foreign = append(foreign, name)
		}
	}
	if len(foreign) == 0 {
		return nil
	}
	const shown = 3
	more := ""
	if len(foreign) > shown {
		more, foreign = fmt.Sprintf(" and %d more", len(foreign)-shown), foreign[:shown]
	}
	return fmt.Errorf("%s holds %q%s, which no index of ours writes", path, foreign, more)
}

// emptyOrAbsent reports whether path is absent or an empty folder.
func emptyOrAbsent(path string) (bool, error) {
	entries, err := os.ReadDir(path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	return err == nil && len(entries) == 0, err
}

// openBleve opens the index at path. A panic while reading garbage files
// is that open's error, not the process's.
func openBleve(path string) (bl bleve.Index, err error) {
	defer func() {
		if r := recover(); r != nil {
			bl, err = nil, fmt.Errorf("reading the index panicked: %v", r)
		}
	}()
	return bleve.OpenUsing(path, map[string]any{
		"bolt_timeout":           lockWaitTimeout,
		"asyncErrorCallbackName": asyncErrorCallbackName,
	})
}

// load reads the checkpoint and checks that the index answers and holds
// every batch that was written.
//
// The generation check exists because bleve, finding its newest snapshot
// unreadable (a segment file overwritten), silently falls back to an older
// one and deletes the newer: a consistent index, but an older one than was
// written, with no word to the operator. The generation file is written
// after each batch is on disk, so it can lag the index after a crash but
// never lead it; an index behind its generation file lost batches.
func (i *Index) load() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("reading the index panicked: %v", r)
		}
	}()
	if _, err := i.bl.DocCount(); err != nil {
		return err
	}
	raw, err := i.bl.GetInternal([]byte(generationKey))
	if err != nil {
		return err
	}
	var held uint64
	if len(raw) > 0 {
		if held, err = strconv.ParseUint(string(raw), 10, 64); err != nil {
			return fmt.Errorf("generation %.40q: %w", raw, err)
		}
	}
	i.generation.Store(held)
	switch written, err := os.ReadFile(filepath.Join(i.dir, DirName, GenerationFileName)); {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return err
	case len(strings.TrimSpace(string(written))) == 0:
		// Written without a sync: a power cut can leave it empty.
	default:
		n, err := strconv.ParseUint(strings.TrimSpace(string(written)), 10, 64)
		if err != nil {
			return fmt.Errorf("generation file %.40q: %w", written, err)
		}
		if n > held {
			return fmt.Errorf("the index holds %d batches but %d were written: part of it was lost", held, n)
		}
	}
	if i.checkpoint, err = i.bl.GetInternal([]byte(checkpointKey)); err != nil {
		return err
	}
	return nil
}

// The files on disk.

func writeFileSynced(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// writeFileAtomic replaces name, so a reader never sees half a file. It
// does not sync: the generation file may lag after a power cut, which the
// check in load allows.
func writeFileAtomic(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// Remove removes the index under dir (and a build left halfway), so the
// next Open makes a new, empty one: an operator's rebuild. The index must
// be closed. A folder that holds anything an index of ours does not
// write is left as it is (ErrForeign); dir itself and anything else in
// it stay.
func Remove(dir, what string) error {
	for _, name := range []string{DirName, NewDirName} {
		path := filepath.Join(dir, name)
		if err := ownFolder(path); err != nil {
			return unavailable(what, dir, replica.ErrForeign, err)
		}
		if err := os.RemoveAll(path); err != nil {
			return unavailable(what, dir, replica.ErrWriteFailed, err)
		}
	}
	if err := syncDir(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return unavailable(what, dir, replica.ErrWriteFailed, err)
	}
	return nil
}

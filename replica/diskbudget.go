package replica

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/dustin/go-humanize"
)

// ErrDiskBudget is a harvest held because its replica's folder has
// grown to the operator's disk budget (DiskBudget).
var ErrDiskBudget = errors.New("the replica's disk budget is spent")

// DiskBudgetError says how far a replica's folder is over its budget,
// and what the operator can do about it. It names no folder: the status
// page shows it to anyone.
type DiskBudgetError struct {
	Used, Limit int64 // bytes
}

func (e *DiskBudgetError) Error() string {
	return fmt.Sprintf("%v: %s used of a max_disk of %s; the index still answers, but harvesting waits until the budget is raised or the scope narrowed (since, sources)",
		ErrDiskBudget, humanize.IBytes(uint64(e.Used)), humanize.IBytes(uint64(e.Limit)))
}

func (e *DiskBudgetError) Unwrap() error { return ErrDiskBudget }

// DirSize is the bytes of the regular files under dir.
func DirSize(dir string) (int64, error) {
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // a segment merged away while walking
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		n += info.Size()
		return nil
	})
	return n, err
}

// DiskBudget is next behind a disk budget: before each page it measures
// dir, and while the folder holds limit bytes or more it refuses with a
// *DiskBudgetError, which the harvester records as the page's failure
// and waits on as on any other (so it tries again later: the index's
// merges may free room, and a reload may raise the budget). A limit of
// 0 or less is no budget.
func DiskBudget(dir string, limit int64, next func(context.Context) error) func(context.Context) error {
	if next == nil {
		next = func(context.Context) error { return nil }
	}
	if limit <= 0 {
		return next
	}
	return func(ctx context.Context) error {
		used, err := DirSize(dir)
		if err != nil {
			return fmt.Errorf("measuring the replica's folder for its disk budget: %w", err)
		}
		if used >= limit {
			return &DiskBudgetError{Used: used, Limit: limit}
		}
		return next(ctx)
	}
}

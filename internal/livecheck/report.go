package livecheck

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// WriteText writes the report: one block per platform, then a summary
// line. It returns how many platforms did not pass.
func WriteText(w io.Writer, results []Result) int {
	failed := 0
	for _, r := range results {
		verdict := "ok"
		if !r.OK() {
			verdict, failed = "FAILED", failed+1
		}
		if r.Off {
			verdict = "off"
		}
		fmt.Fprintf(w, "%s: %s\n", r.Platform, verdict)
		fmt.Fprintf(w, "  request:    %s\n", r.URL)
		switch {
		case r.Off:
			fmt.Fprintf(w, "  reachable:  not called: %s\n", r.Error)
		case r.Reachable:
			fmt.Fprintf(w, "  reachable:  yes, %d in %s\n", r.Status, r.Elapsed.Round(time.Millisecond))
		default:
			fmt.Fprintf(w, "  reachable:  no: %s\n", r.Error)
		}
		switch {
		case !r.Reachable:
			fmt.Fprintf(w, "  shape:      not checked (no answer); basis would be %s\n", r.Basis)
		case !r.ShapeChecked && r.Error != "":
			fmt.Fprintf(w, "  shape:      not checked: %s\n", r.Error)
		case !r.ShapeChecked:
			fmt.Fprintf(w, "  shape:      not checked: no sample and no documented shape (%s)\n", r.probe.DocSource)
		case r.ShapeOK:
			fmt.Fprintf(w, "  shape:      as expected (checked against %s)\n", r.Basis)
		default:
			fmt.Fprintf(w, "  shape:      NOT as expected (checked against %s):\n", r.Basis)
			for _, m := range r.Missing {
				fmt.Fprintf(w, "                %s\n", m)
			}
		}
		if len(r.New) > 0 {
			fmt.Fprintf(w, "  new fields: %d not in the samples (an emulator may serve them only once documented):\n", len(r.New))
			for _, n := range r.New {
				fmt.Fprintf(w, "                %s\n", n)
			}
		}
		if r.Reachable || r.Status != 0 {
			if len(r.RateLimit) == 0 {
				fmt.Fprintf(w, "  rate limit: no rate-limit headers seen\n")
			} else {
				names := make([]string, 0, len(r.RateLimit))
				for n := range r.RateLimit {
					names = append(names, n)
				}
				sort.Strings(names)
				var parts []string
				for _, n := range names {
					parts = append(parts, n+": "+r.RateLimit[n])
				}
				fmt.Fprintf(w, "  rate limit: %s\n", strings.Join(parts, "; "))
			}
		}
		if r.CacheStatus != "" {
			fmt.Fprintf(w, "  cache:      %s\n", r.CacheStatus)
		}
		if r.Saved != "" {
			fmt.Fprintf(w, "  saved:      %s\n", r.Saved)
		}
	}
	fmt.Fprintf(w, "\n%d of %d platforms passed\n", len(results)-failed, len(results))
	return failed
}

// Save writes each reachable answer (2xx, not truncated) to
// dir/<platform>/<probe>.live-<UTC time>.<ext> and appends a line naming
// its origin to dir/<platform>/ORIGIN.md, as the shared fixtures' README
// names every file's origin. Existing files are never overwritten.
func Save(dir string, results []Result, now time.Time) error {
	stamp := now.UTC().Format("20060102T150405Z")
	var errs []error
	for i := range results {
		r := &results[i]
		if !r.Reachable || r.Truncated || len(r.body) == 0 {
			continue
		}
		pdir := filepath.Join(dir, r.Platform)
		if err := os.MkdirAll(pdir, 0o755); err != nil {
			errs = append(errs, err)
			continue
		}
		name := r.probe.Name + ".live-" + stamp + "." + r.probe.Ext
		path := filepath.Join(pdir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			if errors.Is(err, fs.ErrExist) {
				err = fmt.Errorf("%s exists; not overwritten", path)
			}
			errs = append(errs, err)
			continue
		}
		_, werr := f.Write(r.body)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			errs = append(errs, werr)
			continue
		}
		r.Saved = path
		line := fmt.Sprintf("- `%s`: recorded %s by besluitbron-livecheck, %s %s (status %d, via BesluitBron, past its cache). Not trimmed.\n",
			name, now.UTC().Format(time.RFC3339), r.probe.Request.Method, r.URL, r.Status)
		if err := appendFile(filepath.Join(pdir, "ORIGIN.md"), line); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func appendFile(path, text string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

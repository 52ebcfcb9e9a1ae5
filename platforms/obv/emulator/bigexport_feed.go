package emulator

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// The large export's two endpoints (bigexport.go says what they serve)
// and their cursors.

// A large export's cursor names its feed, the position, and when it was
// issued (for CursorTTL), sealed so no other string passes.
func (e *Emulator) bigCursor(source, feed string, pos int) string {
	issued := e.now().UnixMilli()
	return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("%s|%d|%d|%s", feed, pos, issued, e.bigSeal(source, feed, pos, issued))))
}

func (e *Emulator) bigSeal(source, feed string, pos int, issued int64) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("large|%d|%s|%s|%d|%d", e.cfg.Seed, source, feed, pos, issued)))
	return hex.EncodeToString(h[:6])
}

// parseBigCursor reads a cursor of feed for source; false for one not
// issued so, or issued longer ago than CursorTTL.
func (e *Emulator) parseBigCursor(source, feed, raw string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return 0, false
	}
	parts := strings.Split(string(b), "|")
	if len(parts) != 4 || parts[0] != feed {
		return 0, false
	}
	pos, err1 := strconv.Atoi(parts[1])
	issued, err2 := strconv.ParseInt(parts[2], 10, 64)
	if err1 != nil || err2 != nil || pos < 0 || e.bigSeal(source, feed, pos, issued) != parts[3] {
		return 0, false
	}
	if ttl := e.big.cfg.CursorTTL; ttl > 0 && e.now().Sub(time.UnixMilli(issued)) > ttl {
		return 0, false
	}
	return pos, true
}

// --- the endpoints ---

func (e *Emulator) serveBigSnapshot(w http.ResponseWriter, r *http.Request) {
	src, limit, ok := e.exportParams(w, r)
	if !ok {
		return
	}
	key := src.org.Key
	s := e.big.sources[key] // nil: a source without a log, whose export is empty
	pos := 0
	if raw := r.URL.Query().Get("cursor"); raw != "" {
		if k := indexOf(bigKinds, raw); k >= 0 {
			if s != nil {
				pos = s.kindStartPos(k) // cursor=motion skips ahead to the motions
			}
		} else if pos, ok = e.parseBigCursor(key, "snapshot", raw); !ok {
			badCursor(w)
			return
		}
	}
	var recs []bigRecord
	head, more := 0, false
	if s != nil {
		head = s.head(e.now())
		for ; len(recs) < limit; pos++ {
			ent, ok := s.snapshotEntity(pos)
			if !ok {
				break
			}
			if seq, ok := s.latest(ent, head); ok {
				recs = append(recs, e.bigRecordAt(s, seq))
			}
		}
		for p := pos; !more; p++ {
			ent, ok := s.snapshotEntity(p)
			if !ok {
				break
			}
			_, more = s.latest(ent, head)
		}
	}
	w.Header().Set("X-Next-Cursor", e.bigCursor(key, "snapshot", pos))
	w.Header().Set("X-Has-More", strconv.FormatBool(more))
	w.Header().Set("X-Changes-Cursor", e.bigCursor(key, "changes", head))
	writeBigNDJSON(w, recs)
}

// bigKinds are the kinds the snapshot's named cursors skip to.
var bigKinds = []string{"document", "meeting", "motion"}

func (e *Emulator) serveBigChanges(w http.ResponseWriter, r *http.Request) {
	src, limit, ok := e.exportParams(w, r)
	if !ok {
		return
	}
	key := src.org.Key
	pos := 0
	if raw := r.URL.Query().Get("cursor"); raw != "" {
		if pos, ok = e.parseBigCursor(key, "changes", raw); !ok {
			badCursor(w)
			return
		}
	}
	var recs []bigRecord
	head := 0
	if s := e.big.sources[key]; s != nil {
		head = s.head(e.now())
		for ; pos < head && len(recs) < limit; pos++ {
			recs = append(recs, e.bigRecordAt(s, pos))
		}
	}
	w.Header().Set("X-Next-Cursor", e.bigCursor(key, "changes", pos))
	w.Header().Set("X-Has-More", strconv.FormatBool(pos < head))
	writeBigNDJSON(w, recs)
}

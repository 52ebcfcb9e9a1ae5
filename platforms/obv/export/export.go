// Package export is OpenBesluitvorming's export feed as a replica reads
// it: the requests of its two endpoints, a page read strictly, and a
// record as the council documents index keeps it (FeedDocument). The
// index (platforms/obv/localindex) and the harvester (platforms/obv)
// both build on it.
package export

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// OpenBesluitvorming's export (OpenBesluitvorming's API.md, "Export";
// the emulator's shapes are in docs/emulators.md): per source, first the current state page by page
// (/api/export/snapshot?source=&cursor=&limit≤1000), keeping
// X-Changes-Cursor from the first page, then the change feed from that
// cursor (/api/export/changes?source=&cursor=&limit≤1000). Both answer
// NDJSON, one record a line, with the next page's cursor in X-Next-Cursor
// and X-Has-More; an empty changes page means caught up. A record carries
// seq, op (upsert|delete), time, entity_id, entity_type, source_key,
// supplier, commit_id, content_hash, schema_version and payload; full text
// is never in it. One call costs one unit of the platform's budget.
//
// This file reads a page strictly: a replica built from it must never
// hold half a record, so anything it does not fully recognise is an
// *ExportError naming what, and the page is not used.

// MaxExportLimit is the largest page the export serves.
const MaxExportLimit = 1000

// MaxExportRecordBytes caps one record's line. A record holds metadata
// only (no full text): the largest the emulator writes, a meeting with a
// long agenda, is a few kilobytes, and 256 KiB leaves room for a hundred
// times that while keeping one page (1,000 records) within 256 MiB.
const MaxExportRecordBytes = 256 << 10

// SnapshotRequest asks for one page of source's current state after
// cursor ("" for the first page).
func SnapshotRequest(source, cursor string, limit int) adapters.Request {
	return exportRequest("/api/export/snapshot", source, cursor, limit)
}

// ChangesRequest asks for one page of source's change feed after cursor
// (the snapshot's X-Changes-Cursor, then each page's X-Next-Cursor).
func ChangesRequest(source, cursor string, limit int) adapters.Request {
	return exportRequest("/api/export/changes", source, cursor, limit)
}

func exportRequest(path, source, cursor string, limit int) adapters.Request {
	if limit <= 0 || limit > MaxExportLimit {
		limit = MaxExportLimit
	}
	q := url.Values{"source": {source}, "limit": {strconv.Itoa(limit)}}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	return adapters.Get(path, q)
}

// ExportRecord is one record of the export.
type ExportRecord struct {
	Seq         int64  `json:"seq"`
	Op          string `json:"op"`
	Time        string `json:"time"`
	EntityID    string `json:"entity_id"`
	EntityType  string `json:"entity_type"`
	SourceKey   string `json:"source_key"`
	Supplier    string `json:"supplier"`
	CommitID    string `json:"commit_id"`
	ContentHash string `json:"content_hash"`
	// schema_version is not decoded: nothing here reads it, and a record
	// must not be refused for its form. The platform writes a string
	// ("v1alpha1" in API.md's record; a string in
	// entity-commit.schema.json), which an int field once refused.
	Payload json.RawMessage `json:"payload"`
}

// The export's operations.
const (
	OpUpsert = "upsert"
	OpDelete = "delete"
)

// ExportPage is one page of the export.
type ExportPage struct {
	Records []ExportRecord
	// Next is the cursor of the page after this one (X-Next-Cursor).
	Next string
	// More: the platform has more after Next (X-Has-More).
	More bool
	// Changes is the change feed's cursor as of this snapshot page
	// (X-Changes-Cursor): keep the first page's.
	Changes string
}

// ExportError is a page the reader refuses, and why; Line is the
// 1-based line (0 for the page as a whole).
type ExportError struct {
	Kind error
	Line int
	Msg  string
}

func (e *ExportError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("OpenBesluitvorming's export, line %d: %v: %s", e.Line, e.Kind, e.Msg)
	}
	return fmt.Sprintf("OpenBesluitvorming's export: %v: %s", e.Kind, e.Msg)
}

func (e *ExportError) Unwrap() error { return e.Kind }

// The kinds of a refused page, for errors.Is.
var (
	ErrTruncatedRecord = errors.New("a record broken off")
	ErrRecordTooLarge  = errors.New("a record over the size cap")
	ErrBadRecord       = errors.New("a record not as documented")
	ErrBadPageHeaders  = errors.New("paging headers not as documented")
	ErrStuckFeed       = errors.New("the feed does not move on")
)

// ParseExportPage reads one export page for source: its NDJSON body and
// its paging headers. Every line must be a whole record of source, at
// most MaxExportRecordBytes, with an id, a type, a known op and (for an
// upsert) a payload object; the last line must end in a newline (a body
// broken off mid-record does not); and X-Next-Cursor must be given where
// X-Has-More says there is more.
func ParseExportPage(source string, h http.Header, body []byte) (ExportPage, error) {
	page := ExportPage{Next: h.Get("X-Next-Cursor"), Changes: h.Get("X-Changes-Cursor")}
	switch more := h.Get("X-Has-More"); more {
	case "true":
		page.More = true
	case "false", "":
	default:
		return ExportPage{}, &ExportError{Kind: ErrBadPageHeaders, Msg: fmt.Sprintf("X-Has-More %q", more)}
	}
	if page.More && page.Next == "" {
		return ExportPage{}, &ExportError{Kind: ErrBadPageHeaders, Msg: "X-Has-More true without X-Next-Cursor"}
	}
	if len(body) > 0 && body[len(body)-1] != '\n' {
		last := bytes.Count(body, []byte{'\n'}) + 1
		return ExportPage{}, &ExportError{Kind: ErrTruncatedRecord, Line: last, Msg: "the body ends without a newline"}
	}
	line := 0
	for len(body) > 0 {
		i := bytes.IndexByte(body, '\n')
		raw := body[:i]
		body = body[i+1:]
		line++
		if len(bytes.TrimSpace(raw)) == 0 {
			continue
		}
		if len(raw) > MaxExportRecordBytes {
			return ExportPage{}, &ExportError{Kind: ErrRecordTooLarge, Line: line, Msg: fmt.Sprintf("%d bytes, the cap is %d", len(raw), MaxExportRecordBytes)}
		}
		rec, err := parseExportRecord(raw)
		if err != nil {
			kind := ErrBadRecord
			if strings.Contains(err.Error(), "unexpected end of JSON input") {
				kind = ErrTruncatedRecord // a line cut short, then a newline
			}
			return ExportPage{}, &ExportError{Kind: kind, Line: line, Msg: err.Error()}
		}
		if rec.SourceKey != "" && rec.SourceKey != source {
			return ExportPage{}, &ExportError{Kind: ErrBadRecord, Line: line, Msg: fmt.Sprintf("a record of source %q in the export of %q", rec.SourceKey, source)}
		}
		page.Records = append(page.Records, rec)
	}
	return page, nil
}

func parseExportRecord(raw []byte) (ExportRecord, error) {
	var rec ExportRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return ExportRecord{}, err
	}
	switch {
	case rec.EntityID == "":
		return rec, errors.New("no entity_id")
	case rec.EntityType == "":
		return rec, errors.New("no entity_type")
	case rec.Op != OpUpsert && rec.Op != OpDelete:
		return rec, fmt.Errorf("op %q is neither upsert nor delete", rec.Op)
	case rec.Op == OpUpsert && (len(rec.Payload) == 0 || rec.Payload[0] != '{'):
		return rec, errors.New("an upsert without a payload object")
	}
	return rec, nil
}

// CheckMoves refuses a page that would have a harvester ask the same page
// again forever: more to come, but the next cursor is the one just asked.
func CheckMoves(asked string, page ExportPage) error {
	if page.More && page.Next == asked {
		return &ExportError{Kind: ErrStuckFeed, Msg: "X-Has-More true and X-Next-Cursor the cursor asked"}
	}
	return nil
}

package emulator

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// SourceInfo is one /api/sources item.
type SourceInfo struct {
	Key              string `json:"key"`
	Label            string `json:"label"`
	Supplier         string `json:"supplier"`
	OrganizationType string `json:"organizationType"`
	Implemented      bool   `json:"implemented"`
	IsAggregate      bool   `json:"isAggregate"`
}

func (e *Emulator) serveSources(w http.ResponseWriter, r *http.Request) {
	only := r.URL.Query().Get("implemented") == "true"
	out := []SourceInfo{}
	for _, o := range e.data.orgs {
		if only && !implemented(o) {
			continue
		}
		out = append(out, SourceInfo{Key: o.Key, Label: o.Label, Supplier: o.Supplier, OrganizationType: o.Type, Implemented: implemented(o)})
	}
	writeJSON(w, http.StatusOK, map[string]any{"sources": out})
}

func (e *Emulator) serveStats(w http.ResponseWriter, r *http.Request) {
	now := e.now()
	docs, orgs := 0, 0
	types := map[string]int{}
	for _, s := range e.data.all() {
		n := 0
		for _, m := range s.meetings {
			if !m.created.After(now) {
				n += len(m.docs)
			}
		}
		if n > 0 {
			orgs++
			types[s.org.Type]++
		}
		docs += n
	}
	w.Header().Set("Cache-Control", "public, max-age=1800")
	writeJSON(w, http.StatusOK, map[string]int{
		"documentCount": docs, "organizationCount": orgs, "municipalityCount": types[corpus.Gemeente],
		"waterBoardCount": types[corpus.Waterschap], "provinceCount": types[corpus.Provincie],
	})
}

type supplierStatus struct {
	Supplier         string  `json:"supplier"`
	Label            string  `json:"label"`
	State            string  `json:"state"`
	SourceCount      int     `json:"sourceCount"`
	OKSourceCount    int     `json:"okSourceCount"`
	RunCount         int     `json:"runCount"`
	SucceededCount   int     `json:"succeededCount"`
	FailedCount      int     `json:"failedCount"`
	LastSuccessAt    string  `json:"lastSuccessAt"`
	LastErrorMessage *string `json:"lastErrorMessage"`
}

type succeededBy struct {
	CBSID     string `json:"cbsId"`
	Label     string `json:"label"`
	SourceKey string `json:"sourceKey"`
}

type sourceStatus struct {
	SourceKey         string       `json:"sourceKey"`
	SourceRef         string       `json:"sourceRef,omitempty"`
	Label             string       `json:"label"`
	Supplier          string       `json:"supplier,omitempty"`
	OrganizationType  string       `json:"organizationType,omitempty"`
	CBSID             string       `json:"cbsId,omitempty"`
	State             string       `json:"state"`
	LastSuccessAt     *string      `json:"lastSuccessAt,omitempty"`
	LastRunAt         *string      `json:"lastRunAt,omitempty"`
	LastRunStatus     string       `json:"lastRunStatus,omitempty"`
	LastErrorMessage  *string      `json:"lastErrorMessage,omitempty"`
	DiscontinuedAt    string       `json:"discontinuedAt,omitempty"`
	SucceededBy       *succeededBy `json:"succeededBy,omitempty"`
	LatestContentDate *string      `json:"latestContentDate"`
	LastIndexedAt     *string      `json:"lastIndexedAt,omitempty"`
}

func isoMillis(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

func strp(s string) *string { return &s }

var supplierErrors = map[string]string{
	corpus.IBabs:               `iBabs blocks requests from this host (403 "The request is blocked").`,
	corpus.Notubiz:             "NotuBiz API timed out after 30000 ms.",
	corpus.GemeenteOplossingen: "GemeenteOplossingen returned 502 Bad Gateway.",
	corpus.Parlaeus:            "Parlaeus is not implemented yet.",
}

func (e *Emulator) serveStatus(w http.ResponseWriter, r *http.Request) {
	now := e.now().UTC()
	day := now.Truncate(24 * time.Hour)
	sups := map[string]*supplierStatus{}
	for _, s := range corpus.Suppliers {
		sups[s] = &supplierStatus{Supplier: s, Label: corpus.SupplierLabel(s)}
	}
	var sources []sourceStatus
	for _, s := range e.data.all() {
		o := s.org
		var latest *string
		for _, m := range s.meetings {
			if !m.created.After(now) {
				latest = strp(isoMillis(m.when))
			}
		}
		if o.Discontinued {
			succ, _ := corpus.OrgByKey(o.SucceededBy)
			sources = append(sources, sourceStatus{SourceKey: o.Key, Label: o.Label, State: "discontinued", DiscontinuedAt: o.DiscontinuedAt,
				SucceededBy: &succeededBy{CBSID: succ.CBSID, Label: succ.Label, SourceKey: succ.Key}, LatestContentDate: latest})
			continue
		}
		sup := sups[o.Supplier]
		sup.SourceCount++
		st := sourceStatus{SourceKey: o.Key, SourceRef: s.ref, Label: o.Label, Supplier: o.Supplier, OrganizationType: o.Type,
			CBSID: o.CBSID, LatestContentDate: latest}
		rr := corpus.Rand(e.cfg.Seed, "status", o.Key, day.Format("2006-01-02"))
		runAt := day.Add(time.Duration(rr.IntN(3600000)) * time.Millisecond)
		if runAt.After(now) {
			runAt = runAt.Add(-24 * time.Hour)
		}
		switch {
		case !implemented(o):
			st.State = "not_implemented"
		case rr.IntN(10) == 0:
			st.State, st.LastRunStatus = "failing", "failed"
			st.LastRunAt = strp(isoMillis(runAt))
			st.LastSuccessAt = strp(isoMillis(runAt.Add(-time.Duration(1+rr.IntN(10)) * 24 * time.Hour)))
			st.LastIndexedAt = st.LastSuccessAt
			st.LastErrorMessage = strp(supplierErrors[o.Supplier])
			sup.RunCount += 2
			sup.FailedCount += 2
			sup.LastErrorMessage = st.LastErrorMessage
		default:
			st.State, st.LastRunStatus = "ok", "succeeded"
			st.LastRunAt = strp(isoMillis(runAt))
			st.LastSuccessAt = st.LastRunAt
			st.LastIndexedAt = strp(isoMillis(runAt.Add(-time.Duration(rr.IntN(600)) * time.Second)))
			sup.OKSourceCount++
			sup.RunCount += 2
			sup.SucceededCount += 2
			if sup.LastSuccessAt < *st.LastRunAt {
				sup.LastSuccessAt = *st.LastRunAt
			}
		}
		sources = append(sources, st)
	}
	out := []supplierStatus{}
	for _, k := range corpus.Suppliers {
		s := sups[k]
		switch {
		case s.SourceCount == 0:
			continue
		case s.OKSourceCount == 0:
			s.State = "down"
		case s.OKSourceCount*10 < s.SourceCount*9:
			s.State = "degraded"
		default:
			s.State = "ok"
		}
		if s.LastSuccessAt == "" {
			s.LastSuccessAt = isoMillis(day.Add(-30 * 24 * time.Hour))
		}
		out = append(out, *s)
	}
	w.Header().Set("Cache-Control", "public, max-age=600")
	writeJSON(w, http.StatusOK, map[string]any{
		"generatedAt": isoMillis(now), "windowHours": 36, "indexActivityAvailable": true,
		"suppliers": out, "sources": sources,
	})
}

// --- export ---

var kinds = []string{"meeting", "document", "motion"}

// indexedAt is when the platform first has the entity; updatedAt when it
// last changed (a meeting gets its minutes the day after).
func indexedAt(ent any) time.Time {
	switch v := ent.(type) {
	case *meeting:
		return v.created
	case *document:
		return v.src.meetings[v.meeting].created
	case *motion:
		return v.src.meetings[v.meeting].when.Add(24 * time.Hour)
	}
	return time.Time{}
}

type change struct {
	at   time.Time
	ent  any
	kind int
	idx  int
}

type changeLog struct {
	once    sync.Once
	changes []change
}

func (e *Emulator) changesOf(s *source) []change {
	v, _ := e.logs.LoadOrStore(s.org.Key, &changeLog{})
	cl := v.(*changeLog)
	cl.once.Do(func() {
		for _, m := range s.meetings {
			cl.changes = append(cl.changes, change{m.created, m, 0, m.idx})
			cl.changes = append(cl.changes, change{m.when.Add(24 * time.Hour), m, 0, m.idx})
		}
		for _, d := range s.docs {
			cl.changes = append(cl.changes, change{indexedAt(d), d, 1, d.idx})
		}
		for _, mo := range s.motions {
			cl.changes = append(cl.changes, change{indexedAt(mo), mo, 2, mo.idx})
		}
		sort.SliceStable(cl.changes, func(a, b int) bool {
			x, y := cl.changes[a], cl.changes[b]
			if !x.at.Equal(y.at) {
				return x.at.Before(y.at)
			}
			if x.kind != y.kind {
				return x.kind < y.kind
			}
			return x.idx < y.idx
		})
	})
	return cl.changes
}

func (e *Emulator) cursor(source, kind string, n int) string {
	h := sha256.Sum256([]byte(fmt.Sprintf("%d|%s|%s|%d", e.cfg.Seed, source, kind, n)))
	return base64.RawURLEncoding.EncodeToString([]byte(fmt.Sprintf("%s|%d|%s", kind, n, hex.EncodeToString(h[:4]))))
}

// parseCursor reads a cursor made by cursor for the same source; kinds
// lists what is acceptable.
func (e *Emulator) parseCursor(source, raw string, kinds ...string) (string, int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(raw)
	if err != nil {
		return "", 0, false
	}
	parts := strings.Split(string(b), "|")
	if len(parts) != 3 || !contains(kinds, parts[0]) {
		return "", 0, false
	}
	n, err := strconv.Atoi(parts[1])
	if err != nil || n < 0 || e.cursor(source, parts[0], n) != raw {
		return "", 0, false
	}
	return parts[0], n, true
}

type exportRecord struct {
	Seq           int            `json:"seq"`
	Op            string         `json:"op"`
	Time          string         `json:"time"`
	EntityID      string         `json:"entity_id"`
	EntityType    string         `json:"entity_type"`
	SourceKey     string         `json:"source_key"`
	Supplier      string         `json:"supplier"`
	CommitID      string         `json:"commit_id"`
	ContentHash   string         `json:"content_hash"`
	SchemaVersion string         `json:"schema_version"`
	Payload       map[string]any `json:"payload"`
}

// schemaVersion is the export's schema_version, as API.md's record
// writes it (a string, entity-commit.schema.json).
const schemaVersion = "v1alpha1"

// record is an upsert of ent as the export writes it at time at. The
// payloads hold members OpenBesluitvorming's compactEntityPayload keeps
// (src/quickwit/project.ts), in the forms of its schemas/*.schema.json:
// those this corpus has values for, but a motion's per-member votes,
// which its entity details carry.
func (e *Emulator) record(s *source, seq int, at time.Time, ent any) exportRecord {
	rec := exportRecord{Seq: seq, Op: "upsert", Time: isoMillis(at), SourceKey: s.org.Key, Supplier: s.org.Supplier, SchemaVersion: schemaVersion}
	switch v := ent.(type) {
	case *meeting:
		rec.EntityID, rec.EntityType = v.id, "Meeting"
		rec.Payload = map[string]any{"type": "Meeting", "name": v.title, "start_date": isoMillis(v.when), "agenda": agendaOf(v)}
		if held := v.when.Add(24 * time.Hour); !at.Before(held) {
			// The day after, the meeting's record changes: it has its
			// end (which member the platform changes is not documented).
			rec.Payload["end_date"] = isoMillis(v.when.Add(3 * time.Hour))
		}
	case *document:
		rec.EntityID, rec.EntityType = v.id, "Document"
		// Dated by date_modified alone, as this emulator's search dates a
		// document by its own day (docs/emulators.md).
		rec.Payload = map[string]any{"type": "Document", "name": v.title, "date_modified": isoMillis(v.when),
			"is_referenced_by": s.meetings[v.meeting].id, "original_url": v.downloadURL(), "content_type": "application/pdf"}
	case *motion:
		rec.EntityID, rec.EntityType = v.id, "Motion"
		_, t := e.votes(v)
		m := s.meetings[v.meeting]
		rec.Payload = map[string]any{"type": "Motion", "name": v.name, "result": v.result, "tally": t,
			"meeting": m.id, "agenda_item": v.agendaItem, "attachment": v.attachment, "last_discussed_at": isoMillis(m.when)}
	}
	pb, _ := json.Marshal(rec.Payload)
	h := sha256.Sum256(pb)
	rec.ContentHash = "sha256:" + hex.EncodeToString(h[:])
	rec.CommitID = commitID(rec.EntityID, rec.Time)
	return rec
}

// commitID is a commit's id in API.md's record form,
// commit:<entity id>:<12 hex digits>.
func commitID(entityID, at string) string {
	c := sha256.Sum256([]byte(entityID + at))
	return "commit:" + entityID + ":" + hex.EncodeToString(c[:6])
}

func (e *Emulator) exportParams(w http.ResponseWriter, r *http.Request) (*source, int, bool) {
	key := strings.TrimSpace(r.URL.Query().Get("source"))
	if key == "" {
		apiError(w, http.StatusBadRequest, "Parameter source is verplicht; zie /api/sources voor geldige keys.", "")
		return nil, 0, false
	}
	s, ok := e.data.sourceByKey(key)
	if !ok {
		apiError(w, http.StatusBadRequest, `Onbekende source "`+key+`"; zie /api/sources voor geldige keys.`, "")
		return nil, 0, false
	}
	return s, exportLimit(r.URL.Query()), true
}

// exportLimit reads an export page size as OpenBesluitvorming's web/server.ts exportLimitParam
// and src/exports/log.ts clampLimit do: never an error. Absent or not a
// number (NaN, Infinity) gives the default 500; otherwise the number is
// floored and held to 1..1000 (an empty value is Number("") = 0, so 1).
func exportLimit(q url.Values) int {
	if !q.Has("limit") {
		return 500
	}
	raw := strings.TrimSpace(q.Get("limit"))
	if raw == "" {
		return 1
	}
	f, err := strconv.ParseFloat(raw, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 500
	}
	return int(max(1, min(math.Floor(f), 1000)))
}

func badCursor(w http.ResponseWriter) {
	apiError(w, http.StatusBadRequest, "Ongeldige cursor; gebruik de nextCursor uit een eerdere response.", "")
}

func writeNDJSON(w http.ResponseWriter, recs []exportRecord) {
	var b strings.Builder
	for _, rec := range recs {
		j, _ := json.Marshal(rec)
		b.Write(j)
		b.WriteByte('\n')
	}
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(b.String()))
}

// visibleChanges returns how many of a source's changes have happened by now.
func (e *Emulator) visibleChanges(cs []change) int {
	now := e.now()
	return sort.Search(len(cs), func(i int) bool { return cs[i].at.After(now) })
}

func (e *Emulator) serveSnapshot(w http.ResponseWriter, r *http.Request) {
	if e.big != nil {
		e.serveBigSnapshot(w, r)
		return
	}
	s, limit, ok := e.exportParams(w, r)
	if !ok {
		return
	}
	kind, pos := 0, 0
	if raw := r.URL.Query().Get("cursor"); raw != "" {
		if i := indexOf(kinds, raw); i >= 0 {
			kind = i // cursor=motion skips ahead to the motions
		} else {
			k, n, ok := e.parseCursor(s.org.Key, raw, kinds...)
			if !ok {
				badCursor(w)
				return
			}
			kind, pos = indexOf(kinds, k), n
		}
	}
	now := e.now()
	lists := [][]any{{}, {}, {}}
	for _, m := range s.meetings {
		lists[0] = append(lists[0], m)
	}
	for _, d := range s.docs {
		lists[1] = append(lists[1], d)
	}
	for _, mo := range s.motions {
		lists[2] = append(lists[2], mo)
	}
	cs := e.changesOf(s)
	head := e.visibleChanges(cs)
	var recs []exportRecord
	for ; kind < len(kinds) && len(recs) < limit; kind, pos = kind+1, 0 {
		for ; pos < len(lists[kind]) && len(recs) < limit; pos++ {
			ent := lists[kind][pos]
			if indexedAt(ent).After(now) {
				continue
			}
			at := indexedAt(ent)
			if m, ok := ent.(*meeting); ok && !m.when.Add(24*time.Hour).After(now) {
				at = m.when.Add(24 * time.Hour)
			}
			recs = append(recs, e.record(s, 0, at, ent))
		}
		if len(recs) >= limit {
			break
		}
	}
	// Is anything visible left after the position reached?
	more := false
	for k, p := kind, pos; k < len(kinds) && !more; k, p = k+1, 0 {
		for ; p < len(lists[k]); p++ {
			if !indexedAt(lists[k][p]).After(now) {
				more = true
				break
			}
		}
	}
	if kind >= len(kinds) {
		kind, pos = len(kinds)-1, len(lists[len(kinds)-1])
	}
	for i := range recs {
		recs[i].Seq = i + 1
	}
	w.Header().Set("X-Next-Cursor", e.cursor(s.org.Key, kinds[kind], pos))
	w.Header().Set("X-Has-More", strconv.FormatBool(more))
	w.Header().Set("X-Changes-Cursor", e.cursor(s.org.Key, "changes", head))
	writeNDJSON(w, recs)
}

func indexOf(xs []string, s string) int {
	for i, x := range xs {
		if x == s {
			return i
		}
	}
	return -1
}

func (e *Emulator) serveChanges(w http.ResponseWriter, r *http.Request) {
	if e.big != nil {
		e.serveBigChanges(w, r)
		return
	}
	s, limit, ok := e.exportParams(w, r)
	if !ok {
		return
	}
	pos := 0
	if raw := r.URL.Query().Get("cursor"); raw != "" {
		_, n, ok := e.parseCursor(s.org.Key, raw, "changes")
		if !ok {
			badCursor(w)
			return
		}
		pos = n
	}
	cs := e.changesOf(s)
	head := e.visibleChanges(cs)
	var recs []exportRecord
	for ; pos < head && len(recs) < limit; pos++ {
		c := cs[pos]
		recs = append(recs, e.record(s, pos+1, c.at, c.ent))
	}
	w.Header().Set("X-Next-Cursor", e.cursor(s.org.Key, "changes", pos))
	w.Header().Set("X-Has-More", strconv.FormatBool(pos < head))
	writeNDJSON(w, recs)
}

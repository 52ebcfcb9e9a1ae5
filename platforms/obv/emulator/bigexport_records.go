package emulator

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// The large export's records, each built from its position in a source's
// log. An upsert has the fields and payloads of the small corpus's
// export (record in meta.go, after OpenBesluitvorming's API.md "Export");
// a delete is the tombstone of src/exports/log.ts recordDelete: seq, op,
// time, entity_id, entity_type, source_key and supplier, nothing else
// (no commit, hash, schema version or payload).

// bigRecord is one line of the large export.
type bigRecord struct {
	Seq           int             `json:"seq"`
	Op            string          `json:"op"`
	Time          string          `json:"time"`
	EntityID      string          `json:"entity_id"`
	EntityType    string          `json:"entity_type"`
	SourceKey     string          `json:"source_key"`
	Supplier      string          `json:"supplier"`
	CommitID      string          `json:"commit_id,omitempty"`
	ContentHash   string          `json:"content_hash,omitempty"`
	SchemaVersion int             `json:"schema_version,omitempty"`
	Payload       json.RawMessage `json:"payload,omitempty"`
}

// The payloads, with record's members (meta.go).
type bigMeeting struct {
	ID               string   `json:"id"`
	Name             string   `json:"name"`
	StartDate        string   `json:"start_date"`
	Committee        string   `json:"committee"`
	Organization     string   `json:"organization"`
	AgendaItemIDs    []string `json:"agenda_item_ids"`
	HasRecording     bool     `json:"has_recording"`
	MinutesPublished bool     `json:"minutes_published"`
}

type bigDocument struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Date        string `json:"date"`
	MeetingID   string `json:"meeting_id"`
	OriginalURL string `json:"original_url"`
	ContentType string `json:"content_type"`
	PageCount   int    `json:"page_count"`
}

type bigMotion struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Result       string `json:"result"`
	Tally        tally  `json:"tally"`
	MeetingID    string `json:"meeting_id"`
	AgendaItemID string `json:"agenda_item_id"`
}

// bigRecordAt is record seq of source s's log.
func (e *Emulator) bigRecordAt(s *bigSource, seq int) bigRecord {
	ent, version := seq, 0
	if seq >= s.n {
		ent, version = int(uint64(seq-s.n)*uint64(s.stride)%uint64(s.n)), 1
	}
	kind, idx := kindOf(ent)
	rec := bigRecord{Seq: seq, Op: "upsert", Time: isoMillis(s.at(seq)), EntityID: s.entityID(kind, idx),
		EntityType: bigKinds[kind], SourceKey: s.org.Key, Supplier: s.org.Supplier}
	if version == 1 && s.deleted(ent) {
		rec.Op = "delete"
		return rec
	}
	_, changes := s.changeOf(ent)
	changes = changes && !s.deleted(ent)
	var payload any
	switch kind {
	case 0:
		payload = s.document(rec.EntityID, idx, version)
	case 1:
		payload = s.meeting(rec.EntityID, idx, version)
	default:
		payload = s.motion(rec.EntityID, idx, version, changes)
	}
	rec.Payload, _ = json.Marshal(payload)
	h := sha256.Sum256(rec.Payload)
	rec.ContentHash = "sha256:" + hex.EncodeToString(h[:])
	c := sha256.Sum256([]byte(rec.EntityID + rec.Time))
	rec.CommitID = hex.EncodeToString(c[:10])
	rec.SchemaVersion = 1
	return rec
}

// rnd is the random source of one thing of the log, the same on every
// call.
func (s *bigSource) rnd(what string, i int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(what))
	return rand.New(rand.NewPCG(s.hash^h.Sum64(), uint64(i)))
}

// entityID is the id of a kind's item i, in the platform's form
// (<type>:<supplier>:<orgType>:<sourceKey>:<nativeId>, src/ids.ts).
func (s *bigSource) entityID(kind, i int) string {
	return [4]string{"document", "meeting", "motion", "agenda_item"}[kind] + ":" + s.ref + ":" + s.native(kind, i)
}

// native is the supplier's own id, as source.nativeID (data.go) makes it:
// numbers, UUIDs for iBabs. kind 3 is an agenda item.
func (s *bigSource) native(kind, i int) string {
	base := s.bases[kind]
	if s.org.Supplier == corpus.IBabs {
		a, b := splitmix(base+uint64(i)), splitmix(^base+uint64(i))
		return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", uint32(a>>32), uint16(a>>16), 0x4000|uint16(a)&0x0fff, 0x8000|uint16(b>>48)&0x3fff, b&0xffffffffffff)
	}
	start := [4]int{12000000, 800000, 400000, 3000000}[kind]
	return strconv.Itoa(start + int(base%90000)*10 + i)
}

// meetingWhen is meeting mi's start: a week or three after the log
// created it (the platform has a meeting before it is held), in the
// evening.
func (s *bigSource) meetingWhen(mi int) time.Time {
	r := s.rnd("when", mi)
	day := s.at(entityOf(1, mi)).Truncate(24*time.Hour).AddDate(0, 0, 7+r.IntN(14))
	return day.Add(time.Duration(19+r.IntN(2))*time.Hour + time.Duration(30*r.IntN(2))*time.Minute)
}

// meetingBody is meeting mi's body and title: the first of a block's two
// meetings is the council's, the second a committee's.
func (s *bigSource) meetingBody(mi int) (body, title string) {
	council, committees := bodiesFor(s.org.Type)
	day := s.meetingWhen(mi).Format("2006-01-02")
	if mi%2 == 0 {
		if s.org.Type == corpus.Gemeente {
			return council, "Raadsvergadering " + day
		}
		return council, council + " " + day
	}
	body = committees[s.rnd("body", mi).IntN(len(committees))]
	return body, body + " " + day
}

// meeting is meeting mi's payload; version 1 has its minutes.
func (s *bigSource) meeting(id string, mi, version int) bigMeeting {
	r := s.rnd("meeting", mi)
	body, title := s.meetingBody(mi)
	m := bigMeeting{ID: id, Name: title, StartDate: isoMillis(s.meetingWhen(mi)), Committee: body,
		Organization: s.org.Label, HasRecording: mi%2 == 0 && r.IntN(3) != 0, MinutesPublished: version == 1}
	for k := range 4 + r.IntN(5) {
		m.AgendaItemIDs = append(m.AgendaItemIDs, s.entityID(3, mi*20+k))
	}
	return m
}

// document is document i's payload: the agenda of its block's council
// meeting, or a piece on it; version 1 has a new PDF (another page
// count).
func (s *bigSource) document(id string, i, version int) bigDocument {
	r := s.rnd("document", i)
	mi := i / bigKindSize[0] * bigKindSize[1]
	_, title := s.meetingBody(mi)
	when := s.meetingWhen(mi).Truncate(24*time.Hour).AddDate(0, 0, -r.IntN(10))
	d := bigDocument{ID: id, Name: corpus.Title(r), Date: when.Format("2006-01-02"), MeetingID: s.entityID(1, mi),
		ContentType: "application/pdf", PageCount: 1 + r.IntN(40)}
	if i%bigKindSize[0] == 0 {
		d.Name = "Agenda " + strings.ToLower(title[:1]) + title[1:]
	}
	if version == 1 {
		d.PageCount += 1 + r.IntN(5)
	}
	native := id[strings.LastIndex(id, ":")+1:]
	d.OriginalURL = supplierFileURL(&source{org: s.org}, native)
	return d
}

// motion is motion b's payload (on its block's council meeting). One
// that the log changes is first held over (aangehouden, no votes), then
// decided.
func (s *bigSource) motion(id string, b, version int, changes bool) bigMotion {
	r := s.rnd("motion", b)
	mi := b * bigKindSize[1]
	topic := corpus.Topics[r.IntN(len(corpus.Topics))]
	mo := bigMotion{ID: id, Name: fmt.Sprintf("M%d %s %s", 1+r.IntN(4), capitalise(topic), s.org.Label),
		MeetingID: s.entityID(1, mi), AgendaItemID: s.entityID(3, mi*20+2+r.IntN(2))}
	for mo.Result = pickResult(r); changes && mo.Result == "aangehouden"; {
		mo.Result = pickResult(r)
	}
	if changes && version == 0 {
		mo.Result = "aangehouden"
	}
	seats := 15 + 2*r.IntN(11)
	yes := seats/2 + 1 + r.IntN(seats/2)
	switch mo.Result {
	case "aangenomen":
		mo.Tally = tally{InFavour: yes, Against: seats - yes}
	case "verworpen":
		mo.Tally = tally{InFavour: seats - yes, Against: yes}
	}
	return mo
}

func writeBigNDJSON(w http.ResponseWriter, recs []bigRecord) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b) // Encode ends each record with the newline NDJSON wants
	for _, rec := range recs {
		_ = enc.Encode(rec)
	}
	w.Header().Set("Content-Type", "application/x-ndjson; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
}

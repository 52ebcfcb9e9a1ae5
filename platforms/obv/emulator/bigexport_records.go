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
// export (record in meta.go, after OpenBesluitvorming's API.md "Export"
// and its compactEntityPayload); a delete is the tombstone of
// src/exports/log.ts recordDelete: seq, op, time, entity_id, entity_type,
// source_key and supplier, nothing else (no commit, hash, schema version
// or payload).

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
	SchemaVersion string          `json:"schema_version,omitempty"`
	Payload       json.RawMessage `json:"payload,omitempty"`
}

// bigEntityTypes are the kinds' entity_type, as the platform writes it
// (entity-commit.schema.json).
var bigEntityTypes = [3]string{"Document", "Meeting", "Motion"}

// The payloads, with record's members (meta.go).
type bigMeeting struct {
	Type      string       `json:"type"`
	Name      string       `json:"name"`
	StartDate string       `json:"start_date"`
	EndDate   string       `json:"end_date,omitempty"`
	Agenda    []agendaJSON `json:"agenda"`
}

type bigDocument struct {
	Type            string `json:"type"`
	Name            string `json:"name"`
	OriginalURL     string `json:"original_url"`
	ContentType     string `json:"content_type"`
	DateModified    string `json:"date_modified"`
	LastDiscussedAt string `json:"last_discussed_at"`
	IsReferencedBy  string `json:"is_referenced_by"`
}

type bigMotion struct {
	Type            string `json:"type"`
	Name            string `json:"name"`
	Result          string `json:"result"`
	Tally           tally  `json:"tally"`
	Meeting         string `json:"meeting"`
	AgendaItem      string `json:"agenda_item"`
	LastDiscussedAt string `json:"last_discussed_at"`
}

// bigRecordAt is record seq of source s's log.
func (e *Emulator) bigRecordAt(s *bigSource, seq int) bigRecord {
	ent, version := seq, 0
	if seq >= s.n {
		ent, version = int(uint64(seq-s.n)*uint64(s.stride)%uint64(s.n)), 1
	}
	kind, idx := kindOf(ent)
	rec := bigRecord{Seq: seq, Op: "upsert", Time: isoMillis(s.at(seq)), EntityID: s.entityID(kind, idx),
		EntityType: bigEntityTypes[kind], SourceKey: s.org.Key, Supplier: s.org.Supplier}
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
	rec.CommitID = commitID(rec.EntityID, rec.Time)
	rec.SchemaVersion = schemaVersion
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

// meeting is meeting mi's payload, with its agenda: the council's
// meeting (the first of a block's two) lists the block's documents, the
// first (the agenda itself) under "Opening", each other under an item of
// its name, as the small corpus's meetings (data.go); the committee's has
// items only. Version 1 is the meeting held: it has its end.
func (s *bigSource) meeting(id string, mi, version int) bigMeeting {
	r := s.rnd("meeting", mi)
	_, title := s.meetingBody(mi)
	when := s.meetingWhen(mi)
	m := bigMeeting{Type: "Meeting", Name: title, StartDate: isoMillis(when)}
	if version == 1 {
		m.EndDate = isoMillis(when.Add(time.Duration(2+r.IntN(3)) * time.Hour))
	}
	item := func(k int, title string, docs ...int) agendaJSON {
		a := agendaJSON{ID: s.entityID(3, mi*20+k), Title: title, Number: strconv.Itoa(k + 1), Documents: []docRef{}, AgendaItems: []agendaJSON{}}
		for _, i := range docs {
			d := s.document(s.entityID(0, i), i, 0)
			a.Documents = append(a.Documents, docRef{ID: s.entityID(0, i), Name: d.Name, OriginalURL: d.OriginalURL})
		}
		return a
	}
	if mi%bigKindSize[1] == 0 {
		first := mi / bigKindSize[1] * bigKindSize[0] // the block's first document: its agenda
		m.Agenda = append(m.Agenda, item(0, "Opening", first), item(1, "Vaststellen agenda"))
		for j := 1; j < bigKindSize[0]; j++ {
			d := s.document(s.entityID(0, first+j), first+j, 0)
			m.Agenda = append(m.Agenda, item(len(m.Agenda), d.Name, first+j))
		}
	} else {
		m.Agenda = append(m.Agenda, item(0, "Opening"), item(1, "Vaststellen agenda"))
		for range 2 + r.IntN(5) {
			m.Agenda = append(m.Agenda, item(len(m.Agenda), corpus.Title(r)))
		}
	}
	m.Agenda = append(m.Agenda, item(len(m.Agenda), "Rondvraag"), item(len(m.Agenda)+1, "Sluiting"))
	return m
}

// document is document i's payload: the agenda of its block's council
// meeting, or a piece on it, last discussed there; version 1 is changed
// at the source some days after the meeting (a new PDF).
func (s *bigSource) document(id string, i, version int) bigDocument {
	r := s.rnd("document", i)
	mi := i / bigKindSize[0] * bigKindSize[1]
	_, title := s.meetingBody(mi)
	meetingStart := s.meetingWhen(mi)
	when := meetingStart.Truncate(24*time.Hour).AddDate(0, 0, -r.IntN(10))
	d := bigDocument{Type: "Document", Name: corpus.Title(r), ContentType: "application/pdf", DateModified: isoMillis(when),
		LastDiscussedAt: isoMillis(meetingStart), IsReferencedBy: s.entityID(1, mi)}
	if i%bigKindSize[0] == 0 {
		d.Name = "Agenda " + strings.ToLower(title[:1]) + title[1:]
	}
	if version == 1 {
		d.DateModified = isoMillis(meetingStart.AddDate(0, 0, 1+r.IntN(30)))
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
	mo := bigMotion{Type: "Motion", Name: fmt.Sprintf("M%d %s %s", 1+r.IntN(4), capitalise(topic), s.org.Label),
		Meeting: s.entityID(1, mi), AgendaItem: s.entityID(3, mi*20+2+r.IntN(2)), LastDiscussedAt: isoMillis(s.meetingWhen(mi))}
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

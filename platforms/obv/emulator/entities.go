package emulator

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

type docRef struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	OriginalURL string `json:"original_url"`
}

type agendaJSON struct {
	ID          string       `json:"id"`
	Title       string       `json:"title"`
	Number      string       `json:"number"`
	Documents   []docRef     `json:"documents"`
	AgendaItems []agendaJSON `json:"agenda_items"`
}

type tally struct {
	InFavour int `json:"in_favour"`
	Against  int `json:"against"`
}

type vote struct {
	Option    string `json:"option"`
	Voter     string `json:"voter"`
	VoterName string `json:"voter_name"`
	Group     string `json:"group"`
	GroupName string `json:"group_name"`
}

type motionJSON struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Result       string `json:"result"`
	Tally        tally  `json:"tally"`
	Votes        []vote `json:"votes"`
	VoteSummary  string `json:"vote_summary,omitempty"` // see voteSummary
	AgendaItem   string `json:"agenda_item"`
	AttachmentID string `json:"attachment_id"`
	DownloadURL  string `json:"download_url"`
}

type chapter struct {
	Title        string `json:"title"`
	StartSeconds int    `json:"start_seconds"`
	EndSeconds   int    `json:"end_seconds"`
	AgendaItem   string `json:"agenda_item"`
}

type segment struct {
	StartSeconds float64 `json:"start_seconds"`
	EndSeconds   float64 `json:"end_seconds"`
	Text         string  `json:"text"`
}

type recordingJSON struct {
	ID              string    `json:"id"`
	MediaType       string    `json:"media_type"`
	StreamURL       string    `json:"stream_url"`
	DurationSeconds int       `json:"duration_seconds"`
	TranscriptKind  string    `json:"transcript_kind"`
	Chapters        []chapter `json:"chapters"`
	Segments        []segment `json:"segments"`
}

// entityHeader is what every entity detail starts with.
type entityHeader struct {
	EntityID        string `json:"entityId"`
	EntityType      string `json:"entityType"`
	EntityTypeLabel string `json:"entityTypeLabel"`
	Title           string `json:"title"`
	Organization    string `json:"organization"`
	Date            string `json:"date"`
	SortDate        string `json:"sortDate"`
}

type meetingDetail struct {
	entityHeader
	Agenda     []agendaJSON    `json:"agenda"`
	Motions    []motionJSON    `json:"motions"`
	Recordings []recordingJSON `json:"recordings"`
}

type documentDetail struct {
	entityHeader
	MarkdownText string `json:"markdownText"`
	DownloadURL  string `json:"downloadUrl"`
	ContentType  string `json:"contentType"`
	PDFURL       string `json:"pdfUrl"`
	MeetingID    string `json:"meetingId"`
}

type motionInner struct {
	Name        string `json:"name"`
	MotionType  string `json:"motion_type"`
	Status      string `json:"status"`
	Result      string `json:"result"`
	Tally       tally  `json:"tally"`
	Votes       []vote `json:"votes"`
	VoteSummary string `json:"vote_summary,omitempty"` // see voteSummary
}

type motionDetail struct {
	entityHeader
	Motion    motionInner `json:"motion"`
	MeetingID string      `json:"meetingId"`
}

func (e *Emulator) serveEntity(w http.ResponseWriter, r *http.Request) {
	rest := strings.TrimPrefix(r.URL.EscapedPath(), "/api/entities/")
	if i := strings.Index(rest, "/pdf/page/"); i >= 0 {
		e.servePDFPage(w, r, rest[:i], rest[i+len("/pdf/page/"):])
		return
	}
	id, err := url.PathUnescape(rest)
	if err != nil || strings.Contains(id, "/") {
		ent404(w)
		return
	}
	ent, ok := e.data.entity(id)
	if ok && e.visible(ent) {
		switch v := ent.(type) {
		case *meeting:
			writeJSON(w, http.StatusOK, e.meetingDetail(v))
			return
		case *document:
			writeJSON(w, http.StatusOK, e.documentDetail(v))
			return
		case *motion:
			writeJSON(w, http.StatusOK, e.motionDetail(v))
			return
		}
	}
	ent404(w)
}

// ent404 is the entity 404 (OpenBesluitvorming's web/server.ts), with the error code the API
// added later (OpenBesluitvorming's web/api_errors.ts).
func ent404(w http.ResponseWriter) {
	apiError(w, http.StatusNotFound, "Resultaat niet gevonden", "")
}

// visible tells whether the platform has indexed the entity by now.
func (e *Emulator) visible(ent any) bool {
	t := indexedAt(ent)
	return !t.IsZero() && !t.After(e.now())
}

// agendaOf is a meeting's agenda tree, as the entity details and the
// export's payload (meeting.schema.json, agendaItem) both write it.
func agendaOf(m *meeting) []agendaJSON {
	s := m.src
	var toJSON func(a agendaItem) agendaJSON
	toJSON = func(a agendaItem) agendaJSON {
		j := agendaJSON{ID: a.id, Title: a.title, Number: a.number, Documents: []docRef{}, AgendaItems: []agendaJSON{}}
		for _, di := range a.docs {
			d := s.docs[di]
			j.Documents = append(j.Documents, docRef{ID: d.id, Name: d.title, OriginalURL: d.downloadURL()})
		}
		for _, sub := range a.sub {
			j.AgendaItems = append(j.AgendaItems, toJSON(sub))
		}
		return j
	}
	out := []agendaJSON{}
	for _, a := range m.agenda {
		out = append(out, toJSON(a))
	}
	return out
}

func (e *Emulator) meetingDetail(m *meeting) meetingDetail {
	s := m.src
	out := meetingDetail{entityHeader: entityHeader{EntityID: m.id, EntityType: "Meeting", EntityTypeLabel: "Vergadering", Title: m.title,
		Organization: s.org.Label, Date: corpus.DutchDate(m.when), SortDate: sortDate(m.when)},
		Agenda: agendaOf(m), Motions: []motionJSON{}, Recordings: []recordingJSON{}}
	for _, mi := range m.motions {
		mo := s.motions[mi]
		if !e.visible(mo) {
			continue
		}
		_, t := e.votes(mo)
		native := mo.attachment[strings.LastIndex(mo.attachment, ":")+1:]
		out.Motions = append(out.Motions, motionJSON{ID: mo.id, Name: mo.name, Result: mo.result, Tally: t, Votes: []vote{},
			VoteSummary: e.voteSummary(mo, t),
			AgendaItem:  mo.agendaItem, AttachmentID: mo.attachment, DownloadURL: supplierFileURL(s, native)})
	}
	if m.recording != "" {
		out.Recordings = append(out.Recordings, e.recording(m))
	}
	return out
}

func (e *Emulator) recording(m *meeting) recordingJSON {
	r := corpus.Rand(e.cfg.Seed, "recording", m.recording)
	rec := recordingJSON{ID: m.recording, MediaType: "video", DurationSeconds: m.duration, TranscriptKind: "asr",
		StreamURL: "https://stream.example-media.nl/" + m.src.org.Key + "/" + m.recording[strings.LastIndex(m.recording, ":")+1:] + "/index.m3u8",
		Chapters:  []chapter{}, Segments: []segment{}}
	// Chapters follow the agenda; segments are about two minutes each.
	at := 14
	per := max(60, (m.duration-at)/len(m.agenda))
	for _, a := range m.agenda {
		end := min(m.duration, at+per-10+r.IntN(20))
		rec.Chapters = append(rec.Chapters, chapter{Title: a.number + " " + a.title, StartSeconds: at, EndSeconds: end, AgendaItem: a.id})
		at = end
	}
	t := 0.0
	for k := 0; t < float64(m.duration) && k < 120; k++ {
		d := 60 + float64(r.IntN(1200))/10
		text := corpus.Sentence(r) + " " + corpus.Sentence(r)
		if k == 0 {
			text = "Goedenavond allemaal, welkom bij deze vergadering. " + text
		}
		if k == 1 {
			text = strings.TrimPrefix(m.spoken, "… ")
		}
		rec.Segments = append(rec.Segments, segment{StartSeconds: t, EndSeconds: min(float64(m.duration), t+d), Text: text})
		t += d
	}
	return rec
}

// votes returns the roll call and its tally (withdrawn and held motions
// have no votes).
func (e *Emulator) votes(mo *motion) ([]vote, tally) {
	s := mo.src
	if mo.result == "ingetrokken" || mo.result == "aangehouden" {
		return []vote{}, tally{}
	}
	r := corpus.Rand(e.cfg.Seed, "votes", mo.id)
	// Each party votes as a block; the result decides the majority.
	for try := 0; ; try++ {
		partyFor := make([]bool, len(s.parties))
		for i := range partyFor {
			partyFor[i] = r.IntN(2) == 0
		}
		var vs []vote
		var t tally
		for _, m := range s.members {
			if r.IntN(20) == 0 {
				continue // absent
			}
			opt := "tegen"
			if partyFor[m.party] {
				opt = "voor"
				t.InFavour++
			} else {
				t.Against++
			}
			p := s.parties[m.party]
			vs = append(vs, vote{Option: opt, Voter: m.id, VoterName: m.name,
				Group: s.entityID(e.cfg.Seed, "party", m.party), GroupName: p.Abbr})
		}
		passed := t.InFavour > t.Against
		if mo.result == "overig" || passed == (mo.result == "aangenomen") || try > 20 {
			return vs, t
		}
	}
}

// voteSummary is the free-text vote breakdown some Notubiz municipalities
// publish instead of per-member votes: OpenBesluitvorming's API.md ("A few publish a vote
// breakdown as free text in vote_summary, stored verbatim") and
// schemas/motion.schema.json (a string; "the formatting varies per
// municipality"). No sample exists; the emulator gives one in three
// Notubiz motions that came to a vote a summary in one plain form.
func (e *Emulator) voteSummary(mo *motion, t tally) string {
	if mo.src.org.Supplier != corpus.Notubiz || t.InFavour+t.Against == 0 ||
		corpus.Rand(e.cfg.Seed, "vote_summary", mo.id).IntN(3) != 0 {
		return ""
	}
	return fmt.Sprintf("Voor: %d stemmen, tegen: %d stemmen. Motie %s.", t.InFavour, t.Against, mo.result)
}

func (e *Emulator) motionDetail(mo *motion) motionDetail {
	m := mo.src.meetings[mo.meeting]
	vs, t := e.votes(mo)
	if mo.src.org.Supplier == corpus.Notubiz {
		// "Notubiz sources have no per-member votes, only the outcome"
		// (OpenBesluitvorming's API.md); the docs' Notubiz example carries a tally and an
		// empty votes list.
		vs = []vote{}
	}
	return motionDetail{entityHeader: entityHeader{EntityID: mo.id, EntityType: "Motion", EntityTypeLabel: "Motie", Title: mo.name,
		Organization: mo.src.org.Label, Date: corpus.DutchDate(m.when), SortDate: sortDate(m.when)},
		Motion: motionInner{Name: mo.name, MotionType: "Moties", Status: motionStatus[mo.result], Result: mo.result, Tally: t, Votes: vs,
			VoteSummary: e.voteSummary(mo, t)},
		MeetingID: m.id}
}

// FullText returns a document's markdown text: tens of KB, the same for the
// same seed and id.
func (e *Emulator) fullText(d *document) string {
	r := corpus.Rand(e.cfg.Seed, "fulltext", d.id)
	var b strings.Builder
	b.WriteString("# " + d.title + "\n\n")
	b.WriteString("**" + d.src.org.Label + "**, " + corpus.DutchDate(d.when) + "\n\n")
	b.WriteString(d.summary + "\n\n")
	sections := []string{"Inleiding", "Beslispunten", "Aanleiding", "Argumenten", "Kanttekeningen", "Financiën", "Communicatie", "Vervolg"}
	paras := 10 + r.IntN(50) // 7–40 KB
	per := max(1, paras/len(sections))
	for i, sec := range sections {
		fmt.Fprintf(&b, "## %d. %s\n\n", i+1, sec)
		b.WriteString(corpus.Paragraphs(r, per))
		b.WriteString("\n\n")
	}
	return b.String()
}

func (e *Emulator) documentDetail(d *document) documentDetail {
	return documentDetail{entityHeader: entityHeader{EntityID: d.id, EntityType: "Document", EntityTypeLabel: "Document", Title: d.title,
		Organization: d.src.org.Label, Date: corpus.DutchDate(d.when), SortDate: sortDate(d.when.Truncate(24 * time.Hour))},
		MarkdownText: e.fullText(d), DownloadURL: d.downloadURL(), ContentType: "application/pdf", PDFURL: d.downloadURL(),
		MeetingID: d.src.meetings[d.meeting].id}
}

func (e *Emulator) servePDFPage(w http.ResponseWriter, r *http.Request, rawID, rawPage string) {
	n, err := strconv.Atoi(rawPage)
	if err != nil || n < 1 {
		apiError(w, http.StatusBadRequest, "Ongeldig paginanummer", "")
		return
	}
	id, err := url.PathUnescape(rawID)
	ent, ok := e.data.entity(id)
	d, isDoc := ent.(*document)
	if err != nil || !ok || !isDoc || !e.visible(d) {
		apiError(w, http.StatusNotFound, "PDF niet gevonden", "")
		return
	}
	if n > d.pages {
		apiError(w, http.StatusNotFound, "Pagina niet gevonden", "")
		return
	}
	img := renderPage(corpus.Rand(e.cfg.Seed, "page", d.id, n))
	w.Header().Set("Content-Type", "image/jpeg")
	w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
	w.Header().Set("X-Pdf-Page-Count", strconv.Itoa(d.pages))
	w.Header().Set("Content-Length", strconv.Itoa(len(img)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(img)
}

// renderPage draws a small grey "page" with text-like lines as a JPEG.
func renderPage(r interface{ IntN(int) int }) []byte {
	const wd, ht = 198, 280 // A4 at a quarter of 96 DPI
	img := image.NewGray(image.Rect(0, 0, wd, ht))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for y := 20; y < ht-20; y += 7 {
		if r.IntN(9) == 0 {
			continue
		}
		end := 20 + r.IntN(wd-40)
		if r.IntN(3) != 0 {
			end = wd - 20
		}
		for x := 20; x < end; x++ {
			img.SetGray(x, y, color.Gray{Y: 0x40})
			img.SetGray(x, y+1, color.Gray{Y: 0x80})
		}
	}
	var buf bytes.Buffer
	_ = jpeg.Encode(&buf, img, &jpeg.Options{Quality: 60})
	return buf.Bytes()
}

package emulator

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// The corpus spans these dates; a merged municipality's data ends at its
// merger.
var (
	corpusStart = time.Date(2019, 1, 1, 0, 0, 0, 0, time.UTC)
	corpusEnd   = time.Date(2026, 12, 20, 0, 0, 0, 0, time.UTC)
)

// source is the generated data of one organisation.
type source struct {
	org      corpus.Org
	ref      string // "notubiz:gemeente:soest"
	meetings []*meeting
	docs     []*document
	motions  []*motion
	parties  []corpus.Party
	members  []member
	byID     map[string]any // entity id → *meeting, *document, *motion
	bases    map[string]uint64
}

type member struct {
	id, name string
	party    int
}

type agendaItem struct {
	id, title, number string
	docs              []int // indices into source.docs
	sub               []agendaItem
}

type meeting struct {
	src        *source
	idx        int
	id         string
	title      string
	body       string
	when       time.Time
	created    time.Time // when the platform indexed it
	agenda     []agendaItem
	docs       []int
	motions    []int
	recording  string // recording id, "" when none
	duration   int
	spoken     string // a fragment of the transcript (searchable)
	haystack   string // lowercased title + agenda, for search
	spokenHays string
}

type document struct {
	src      *source
	idx      int
	id       string
	title    string
	when     time.Time
	meeting  int
	pages    int
	summary  string
	haystack string
}

type motion struct {
	src        *source
	idx        int
	id         string
	name       string
	result     string
	meeting    int
	agendaItem string
	attachment string
	haystack   string
}

func (e *meeting) sortKey() time.Time  { return e.when }
func (e *document) sortKey() time.Time { return e.when }
func (e *motion) sortKey() time.Time   { return e.src.meetings[e.meeting].when }

// nativeID returns the supplier's own id for item i of a kind: numbers for
// most suppliers, UUIDs for iBabs.
func (s *source) nativeID(seed int64, kind string, i int) string {
	base, ok := s.bases[kind]
	if !ok {
		base = corpus.Rand(seed, "base", s.org.Key, kind).Uint64()
		if s.bases == nil {
			s.bases = map[string]uint64{}
		}
		s.bases[kind] = base
	}
	if s.org.Supplier == corpus.IBabs {
		a, b := splitmix(base+uint64(i)), splitmix(^base+uint64(i))
		return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", uint32(a>>32), uint16(a>>16), 0x4000|uint16(a)&0x0fff, 0x8000|uint16(b>>48)&0x3fff, b&0xffffffffffff)
	}
	start := map[string]int{"meeting": 800000, "document": 12000000, "motion": 400000, "agenda_item": 3000000, "recording": 1400000, "person": 50000, "party": 9000}[kind]
	return strconv.Itoa(start + int(base%90000)*10 + i)
}

// splitmix is SplitMix64's output function: a cheap, well-mixed hash.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

func (s *source) entityID(seed int64, kind string, i int) string {
	return kind + ":" + s.ref + ":" + s.nativeID(seed, kind, i)
}

func bodiesFor(t string) (council string, committees []string) {
	switch t {
	case corpus.Provincie:
		return "Provinciale Staten", []string{"Statencommissie Ruimte en Wonen", "Statencommissie Mobiliteit", "Statencommissie Bestuur en Financiën"}
	case corpus.Waterschap:
		return "Algemeen Bestuur", []string{"Commissie Watersysteem", "Commissie Waterketen", "Commissie Bestuur en Middelen"}
	}
	return "Gemeenteraad", []string{"Commissie Ruimte", "Commissie Samenleving", "Commissie Bestuur en Middelen"}
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// buildSource generates one organisation's meetings, documents and motions.
func buildSource(seed int64, org corpus.Org) *source {
	s := &source{org: org, ref: org.Supplier + ":" + org.Type + ":" + org.Key, byID: map[string]any{}}
	r := corpus.Rand(seed, "source", org.Key)
	end := corpusEnd
	if org.Discontinued {
		end, _ = time.Parse("2006-01-02", org.DiscontinuedAt)
	}
	// Council: parties and members.
	np := 5 + r.IntN(5)
	for _, k := range r.Perm(len(corpus.Parties))[:np-1] {
		s.parties = append(s.parties, corpus.Parties[k])
	}
	s.parties = append(s.parties, corpus.Party{Abbr: "Lokaal " + org.Label, Name: "Lokaal Belang " + org.Label})
	seats := 15 + 2*r.IntN(11)
	for i := 0; i < seats; i++ {
		name := corpus.PersonName(r)
		parts := strings.Fields(name)
		voter := parts[len(parts)-1] + ", " + parts[0][:1] + "."
		s.members = append(s.members, member{id: s.entityID(seed, "person", i), name: voter, party: i % np})
	}
	council, committees := bodiesFor(org.Type)
	n := 8 + r.IntN(23)
	span := end.Sub(corpusStart)
	for i := 0; i < n; i++ {
		m := &meeting{src: s, idx: i, id: s.entityID(seed, "meeting", i)}
		// Spread meetings evenly with jitter, so every period has some.
		day := corpusStart.Add(time.Duration(float64(span) * (float64(i) + r.Float64()) / float64(n))).Truncate(24 * time.Hour)
		isCouncil := r.IntN(3) == 0
		m.body = council
		if !isCouncil {
			m.body = committees[r.IntN(len(committees))]
		}
		m.when = day.Add(time.Duration(19+r.IntN(2)) * time.Hour).Add(time.Duration(30*r.IntN(2)) * time.Minute)
		m.created = day.Add(-time.Duration(7+r.IntN(14)) * 24 * time.Hour)
		if isCouncil {
			m.title = "Raadsvergadering " + day.Format("2006-01-02")
			if org.Type != corpus.Gemeente {
				m.title = m.body + " " + day.Format("2006-01-02")
			}
		} else {
			m.title = m.body + " " + day.Format("2006-01-02")
		}
		var hay []string
		hay = append(hay, m.title, m.body)
		items := []string{"Opening", "Vaststellen agenda"}
		for k := 0; k < 2+r.IntN(5); k++ {
			items = append(items, corpus.Title(r))
		}
		items = append(items, "Rondvraag", "Sluiting")
		for k, t := range items {
			ai := agendaItem{id: s.entityID(seed, "agenda_item", i*20+k), title: t, number: strconv.Itoa(k + 1)}
			if k == 0 {
				// The published agenda hangs under "Opening".
				di := len(s.docs)
				doc := &document{src: s, idx: di, id: s.entityID(seed, "document", di), title: "Agenda " + strings.ToLower(m.title[:1]) + m.title[1:],
					when: m.created.Truncate(24 * time.Hour), meeting: i, pages: 1 + r.IntN(3)}
				doc.summary = "Agenda van de " + strings.ToLower(m.body) + " van " + corpus.DutchDate(day) + "."
				doc.haystack = searchText(doc.title + " " + doc.summary + " " + org.Label)
				s.docs = append(s.docs, doc)
				s.byID[doc.id] = doc
				ai.docs = append(ai.docs, di)
				m.docs = append(m.docs, di)
			}
			if k >= 2 && k < len(items)-2 {
				nd := 1 + r.IntN(2)
				for d := 0; d < nd; d++ {
					di := len(s.docs)
					title := t
					if d > 0 {
						title = "Bijlage " + strconv.Itoa(d) + " bij " + strings.ToLower(t[:1]) + t[1:]
					}
					doc := &document{src: s, idx: di, id: s.entityID(seed, "document", di), title: title,
						when: day.Add(-time.Duration(r.IntN(10)) * 24 * time.Hour), meeting: i, pages: 1 + r.IntN(40)}
					if c := m.created.Truncate(24 * time.Hour); doc.when.After(c) {
						doc.when = c // a document exists before the agenda that lists it
					}
					doc.summary = corpus.Sentence(r)
					doc.haystack = searchText(doc.title + " " + doc.summary + " " + org.Label)
					s.docs = append(s.docs, doc)
					s.byID[doc.id] = doc
					ai.docs = append(ai.docs, di)
					m.docs = append(m.docs, di)
				}
				if r.IntN(3) == 0 {
					sub := agendaItem{id: s.entityID(seed, "agenda_item", i*20+10+k), title: "Bespreking " + strings.ToLower(t[:1]) + t[1:], number: strconv.Itoa(k+1) + ".a"}
					ai.sub = append(ai.sub, sub)
				}
			}
			m.agenda = append(m.agenda, ai)
			hay = append(hay, t)
		}
		if isCouncil {
			for k := 0; k < r.IntN(5); k++ {
				mi := len(s.motions)
				topic := corpus.Topics[r.IntN(len(corpus.Topics))]
				ai := m.agenda[2+r.IntN(len(m.agenda)-4)]
				mo := &motion{src: s, idx: mi, id: s.entityID(seed, "motion", mi), meeting: i, agendaItem: ai.id,
					name:   fmt.Sprintf("M%d %s %s", k+1, capitalise(topic), org.Label),
					result: pickResult(r)}
				mo.attachment = s.entityID(seed, "document", 100000+mi)
				mo.haystack = searchText(mo.name)
				s.motions = append(s.motions, mo)
				s.byID[mo.id] = mo
				m.motions = append(m.motions, mi)
			}
			if r.IntN(3) != 0 {
				m.recording = s.entityID(seed, "recording", i)
				m.duration = 3600 + r.IntN(3*3600)
				m.spoken = "… " + strings.ToLower(corpus.Sentence(r))
				m.spokenHays = searchText(m.spoken)
			}
		}
		m.haystack = searchText(strings.Join(hay, " ") + " " + org.Label)
		s.meetings = append(s.meetings, m)
		s.byID[m.id] = m
	}
	return s
}

func pickResult(r *rand.Rand) string {
	switch x := r.IntN(20); {
	case x < 11:
		return "aangenomen"
	case x < 16:
		return "verworpen"
	case x < 18:
		return "ingetrokken"
	case x < 19:
		return "aangehouden"
	}
	return "overig"
}

var motionStatus = map[string]string{
	"aangenomen": "Motie aangenomen", "verworpen": "Motie verworpen", "ingetrokken": "Motie ingetrokken",
	"aangehouden": "Motie aangehouden", "overig": "Afgehandeld",
}

// searchText lowercases text and turns every non-letter, non-digit into a
// space, with a space on both ends, so " word " finds whole words.
func searchText(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 2)
	b.WriteByte(' ')
	space := true
	for _, r := range s {
		if isWordRune(r) {
			b.WriteRune(unicode.ToLower(r))
			space = false
		} else if !space {
			b.WriteByte(' ')
			space = true
		}
	}
	if !space {
		b.WriteByte(' ')
	}
	return b.String()
}

func isWordRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r > 127 && r != '…' && r != '–' && unicode.IsLetter(r)
}

// tokens splits text into lowercase words; punctuation separates words.
func tokens(s string) []string {
	return strings.Fields(searchText(s))
}

// dataset holds the sources, built one at a time on first use.
type dataset struct {
	seed  int64
	orgs  []corpus.Org
	index map[string]int
	once  []sync.Once
	srcs  []*source
}

// datasets shares one dataset per seed between emulators: a dataset only
// grows (each source is built once) and never changes afterwards.
var datasets sync.Map // int64 → *dataset

func sharedDataset(seed int64) *dataset {
	if d, ok := datasets.Load(seed); ok {
		return d.(*dataset)
	}
	d, _ := datasets.LoadOrStore(seed, newDataset(seed))
	return d.(*dataset)
}

func newDataset(seed int64) *dataset {
	orgs := corpus.Orgs()
	d := &dataset{seed: seed, orgs: orgs, index: map[string]int{}, once: make([]sync.Once, len(orgs)), srcs: make([]*source, len(orgs))}
	for i, o := range orgs {
		d.index[o.Key] = i
	}
	return d
}

func (d *dataset) source(i int) *source {
	d.once[i].Do(func() { d.srcs[i] = buildSource(d.seed, d.orgs[i]) })
	return d.srcs[i]
}

func (d *dataset) sourceByKey(key string) (*source, bool) {
	i, ok := d.index[key]
	if !ok {
		return nil, false
	}
	return d.source(i), true
}

// entity finds an entity by its id ("document:notubiz:gemeente:soest:12345").
func (d *dataset) entity(id string) (any, bool) {
	parts := strings.SplitN(id, ":", 5)
	if len(parts) != 5 {
		return nil, false
	}
	s, ok := d.sourceByKey(parts[3])
	if !ok || s.ref != parts[1]+":"+parts[2]+":"+parts[3] {
		return nil, false
	}
	e, ok := s.byID[id]
	return e, ok
}

// all returns every source, building those not built yet.
func (d *dataset) all() []*source {
	out := make([]*source, len(d.orgs))
	for i := range d.orgs {
		out[i] = d.source(i)
	}
	return out
}

// implemented tells whether the platform imports the organisation.
func implemented(o corpus.Org) bool { return o.Supplier != corpus.Parlaeus }

// sortEntities orders by date, newest first when desc.
func sortByDate[T interface{ sortKey() time.Time }](xs []T, desc bool) {
	sort.SliceStable(xs, func(a, b int) bool {
		if desc {
			return xs[a].sortKey().After(xs[b].sortKey())
		}
		return xs[a].sortKey().Before(xs[b].sortKey())
	})
}

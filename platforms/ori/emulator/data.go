package emulator

import (
	"crypto/sha1"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// index is one per-source Elasticsearch index, ori_<source>_<timestamp>.
type index struct {
	pos      int // position in corpus.Orgs()
	name     string
	uuid     string
	org      corpus.Org
	orgID    string // @id of the organisation (has_organization_name)
	docCount int
	created  time.Time

	// orgDoc is the index's Organization object (ORI's
	// TopLevelOrganization), whose @id every MediaObject's
	// has_organization_name holds.
	orgDoc *doc

	once sync.Once
	docs []*doc
}

// doc is one MediaObject's cheap part; the heavy fields are generated on
// demand from the same seed.
type doc struct {
	idx        *index
	n          int
	id         string
	name       string
	discussed  time.Time
	meeting    string
	head       string // first paragraph: the searchable part of text
	nameToks   []string
	headToks   []string
	size       int
	originalID string
	// org marks the index's Organization object: it has @id, @type, name,
	// classification and collection only.
	org bool
}

type corpusData struct {
	seed    int64
	end     time.Time
	indices []*index
	byName  map[string]*index
	byOrgID map[string]*doc
}

func prefixOf(orgType string) string {
	switch orgType {
	case corpus.Provincie:
		return "osi"
	case corpus.Waterschap:
		return "owi"
	}
	return "ori"
}

func newCorpus(seed int64, end time.Time) *corpusData {
	c := &corpusData{seed: seed, end: end, byName: map[string]*index{}, byOrgID: map[string]*doc{}}
	for i, o := range corpus.Orgs() {
		r := corpus.Rand(seed, "ori-index", o.Key)
		created := corpus.Date(r, time.Date(2019, 5, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 6, 1, 0, 0, 0, 0, time.UTC))
		created = created.Add(time.Duration(r.IntN(60)) * time.Second)
		ix := &index{
			pos:      i,
			name:     fmt.Sprintf("%s_%s_%s", prefixOf(o.Type), o.Key, created.Format("20060102150405")),
			org:      o,
			orgID:    strconv.Itoa(100000 + i*37),
			docCount: 40 + r.IntN(160),
			created:  created,
		}
		h := sha1.Sum([]byte(ix.name))
		ix.uuid = fmt.Sprintf("%x", h[:11])[:22]
		ix.orgDoc = &doc{idx: ix, n: -1, id: ix.orgID, name: o.Label, nameToks: tokens(o.Label), org: true}
		c.indices = append(c.indices, ix)
		c.byName[ix.name] = ix
		c.byOrgID[ix.orgID] = ix.orgDoc
	}
	return c
}

// docID is the numeric @id/_id of document n of index ix.
func docID(ix *index, n int) string { return strconv.Itoa(1_000_000 + ix.pos*1000 + n) }

// classification is the Organization's classification as ORI's source
// definitions set it (ocd_backend/sources/*.yaml and
// transformers/allmanak_organization.py).
func classification(orgType string) string {
	switch orgType {
	case corpus.Provincie:
		return "Province"
	case corpus.Waterschap:
		return "Water board"
	}
	return "Municipality"
}

// lookupID finds the document (or Organization object) of a numeric id.
func (c *corpusData) lookupID(id string) *doc {
	if d, ok := c.byOrgID[id]; ok {
		return d
	}
	v, err := strconv.Atoi(id)
	if err != nil || v < 1_000_000 || strconv.Itoa(v) != id {
		return nil
	}
	v -= 1_000_000
	pos, n := v/1000, v%1000
	if pos >= len(c.indices) {
		return nil
	}
	ix := c.indices[pos]
	docs := c.docs(ix)
	if n >= len(docs) {
		return nil
	}
	return docs[n]
}

var docForms = []string{"Raadsvoorstel %s", "Raadsbesluit %s", "Motie %s", "Amendement %s", "Raadsinformatiebrief %s",
	"Besluitenlijst raadsvergadering", "Verslag commissie %s", "Beantwoording schriftelijke vragen %s", "Bijlage %s",
	"Collegebesluit %s", "Notulen raadsvergadering", "Agenda commissievergadering %s"}

func (c *corpusData) docs(ix *index) []*doc {
	ix.once.Do(func() {
		from := c.end.AddDate(-6, 0, 0)
		span := c.end.Sub(from)
		ix.docs = make([]*doc, ix.docCount)
		for n := range ix.docs {
			r := corpus.Rand(c.seed, "ori-doc", ix.org.Key, n)
			topic := corpus.Topics[r.IntN(len(corpus.Topics))]
			name := docForms[r.IntN(len(docForms))]
			if strings.Contains(name, "%s") {
				name = fmt.Sprintf(name, topic)
			}
			if r.IntN(3) == 0 {
				name += ".pdf"
			}
			day := from.Add(time.Duration(float64(span) * (float64(n) + r.Float64()) / float64(ix.docCount)))
			meetingAt := time.Date(day.Year(), day.Month(), day.Day(), 19+r.IntN(2), 30*r.IntN(2), 0, 0, time.UTC)
			d := &doc{
				idx:        ix,
				n:          n,
				id:         docID(ix, n),
				name:       name,
				discussed:  meetingAt,
				meeting:    strconv.Itoa(5_000_000 + ix.pos*300 + n/4),
				size:       20_000 + r.IntN(400_000),
				originalID: strconv.Itoa(100_000 + r.IntN(900_000)),
			}
			hr := corpus.Rand(c.seed, "ori-text", ix.org.Key, n)
			d.head = fmt.Sprintf("%s %s. Dit document van %s gaat over %s. %s", ix.org.Label, name, ix.org.Label, topic, corpus.Sentence(hr))
			d.nameToks = tokens(name)
			d.headToks = tokens(d.head)
			ix.docs[n] = d
		}
	})
	return ix.docs
}

// text returns the full text (tens of KB), which starts with the head.
func (c *corpusData) text(d *doc) string {
	hr := corpus.Rand(c.seed, "ori-text", d.idx.org.Key, d.n)
	corpus.Sentence(hr) // the head's sentence
	n := 20 + hr.IntN(50)
	return d.head + "\n\n" + corpus.Paragraphs(hr, n)
}

func pages(text string) []string {
	var out []string
	paras := strings.Split(text, "\n\n")
	var cur strings.Builder
	for _, p := range paras {
		if cur.Len() > 0 && cur.Len()+len(p) > 3000 {
			out = append(out, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteString("\n\n")
		}
		cur.WriteString(p)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func originalURL(d *doc) string {
	o := d.idx.org
	switch o.Supplier {
	case corpus.IBabs:
		r := corpus.Rand(0, "ibabs", d.id)
		return fmt.Sprintf("https://%s.bestuurlijkeinformatie.nl/Agenda/Document/%s?documentId=%s", o.Key, uuidOf(r), uuidOf(r))
	case corpus.Notubiz:
		return "https://api.notubiz.nl/document/" + d.originalID + "/1"
	case corpus.Parlaeus:
		return fmt.Sprintf("https://%s.parlaeus.nl/user/showdoc/action=view/id=%s", o.Key, d.originalID)
	}
	return fmt.Sprintf("https://%s.raadsinformatie.nl/document/%s/1", o.Key, d.originalID)
}

func uuidOf(r *rand.Rand) string {
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), 0x8000|r.IntN(1<<14), r.Uint64()&(1<<48-1))
}

// ---- text analysis (lower case, no diacritics, split on non-alphanumerics) ----

func tokens(s string) []string {
	return strings.FieldsFunc(corpus.Fold(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

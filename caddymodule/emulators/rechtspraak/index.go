package rechtspraak

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/caddymodule/emulators/corpus"
)

// ruling is the index entry of one ECLI: what the search needs. The
// document text is generated from the ECLI when asked for.
type ruling struct {
	ECLI     string
	Court    int16 // index into courts
	Subject  int16 // index into leaves
	Subject2 int16 // second area, -1 if none
	Type     byte  // 'U' Uitspraak, 'C' Conclusie
	HasDoc   bool  // a document (text) is published, not only metadata
	Deleted  byte  // 0, 'd' (document withdrawn), 'e' (ECLI withdrawn), at Modified
	HadDoc   bool  // a withdrawn ruling had a document before Modified
	Date     time.Time
	Issued   time.Time
	Modified time.Time // UTC, the last modification
	// Published is when the ECLI first appeared (UTC). Before Modified
	// comes, the feed shows Published as the modification time.
	Published time.Time
	CaseNo    string
	LJN       string // pre-2013 rulings: the LJN the ECLI replaces
	Summary   bool   // an inhoudsindicatie exists
}

func (r *ruling) court() *instantie { return &courts[r.Court] }

// state returns what is withdrawn (0, 'd', 'e') and whether a document is
// published, as seen at now.
func (r *ruling) state(now time.Time) (deleted byte, hasDoc bool) {
	if r.Deleted != 0 && r.Modified.After(now) {
		return 0, r.HadDoc
	}
	return r.Deleted, r.HasDoc
}

// modified is the ruling's modification time as seen at now: the last
// modification once it has happened, the publication before.
func (r *ruling) modified(now time.Time) time.Time {
	if r.Modified.After(now) {
		return r.Published
	}
	return r.Modified
}

type index struct {
	rulings []*ruling // by Modified, then ECLI
	byECLI  map[string]*ruling
}

// firstYear is the year of the oldest emulated ruling.
const firstYear = 1998

// massConversion is the day most pre-2013 rulings were last modified, as
// in the real feed (2013-04-04).
var massConversion = time.Date(2013, 4, 4, 13, 30, 0, 0, time.UTC)

func buildIndex(seed int64, now time.Time) *index {
	ix := &index{byECLI: map[string]*ruling{}}
	last := now.Year()
	// Pre-2013 rulings carry LJNs, handed out in publication order across
	// all courts; draw them first, then number.
	type pending struct {
		r   *ruling
		rnd *rand.Rand
	}
	var old []pending
	for ci := range courts {
		c := &courts[ci]
		for y := max(firstYear, c.from); y <= last; y++ {
			if c.to != 0 && y > c.to {
				break
			}
			rnd := corpus.Rand(seed, "rs", c.Abbr, y)
			scale := 1.0
			if y < 2005 {
				scale = 0.4
			} else if y < 2013 {
				scale = 0.7
			}
			n := int(float64(c.weight)*scale) * (80 + rnd.IntN(41)) / 100
			start := time.Date(y, 1, 2, 0, 0, 0, 0, time.UTC)
			end := time.Date(y+1, 1, 1, 0, 0, 0, 0, time.UTC)
			dates := make([]time.Time, n)
			for i := range dates {
				dates[i] = corpus.Date(rnd, start, end).Truncate(24 * time.Hour)
			}
			sort.Slice(dates, func(a, b int) bool { return dates[a].Before(dates[b]) })
			num := 0
			step := 60 + c.weight
			for _, d := range dates {
				r := &ruling{Court: int16(ci), Date: d, Subject2: -1}
				fillRuling(rnd, r, c)
				if y < 2013 {
					old = append(old, pending{r, rnd})
					continue
				}
				num += 1 + rnd.IntN(step)
				r.ECLI = fmt.Sprintf("ECLI:NL:%s:%d:%d", c.Abbr, y, num)
				ix.add(r)
			}
		}
	}
	sort.SliceStable(old, func(a, b int) bool { return old[a].r.Issued.Before(old[b].r.Issued) })
	lr := corpus.Rand(seed, "rs-ljn")
	seq := 1000
	for _, p := range old {
		seq += 1 + lr.IntN(40)
		p.r.LJN = ljn(seq)
		p.r.ECLI = fmt.Sprintf("ECLI:NL:%s:%d:%s", p.r.court().Abbr, p.r.Date.Year(), p.r.LJN)
		ix.add(p.r)
	}
	sort.SliceStable(ix.rulings, func(a, b int) bool {
		x, y := ix.rulings[a], ix.rulings[b]
		if !x.Modified.Equal(y.Modified) {
			return x.Modified.Before(y.Modified)
		}
		return x.ECLI < y.ECLI
	})
	return ix
}

func (ix *index) add(r *ruling) {
	if _, dup := ix.byECLI[r.ECLI]; dup {
		return
	}
	ix.rulings = append(ix.rulings, r)
	ix.byECLI[r.ECLI] = r
}

// ljn formats the n-th Landelijk Jurisprudentie Nummer: AA0001, ..., AZ9999,
// BA0000, ...
func ljn(n int) string {
	block := n / 10000
	return string(rune('A'+block/26%26)) + string(rune('A'+block%26)) + fmt.Sprintf("%04d", n%10000)
}

// areas per kind of court: top-level rechtsgebied names with weights.
var courtAreas = map[string][]string{
	"hr":   {"civielRecht", "civielRecht", "strafRecht", "strafRecht", "bestuursrecht"},
	"phr":  {"civielRecht", "strafRecht", "strafRecht", "bestuursrecht"},
	"rvs":  {"bestuursrecht"},
	"crvb": {"bestuursrecht"},
	"cbb":  {"bestuursrecht"},
	"hof":  {"civielRecht", "civielRecht", "strafRecht", "strafRecht", "bestuursrecht"},
	"rb":   {"civielRecht", "civielRecht", "civielRecht", "strafRecht", "strafRecht", "bestuursrecht", "bestuursrecht", "internationaalPubliekrecht"},
}

// specific second-level areas of the specialised courts.
var courtLeaves = map[string][]string{
	"rvs":  {"bestuursrecht_omgevingsrecht", "bestuursrecht_vreemdelingenrecht", "bestuursrecht_omgevingsrecht", "bestuursrecht_bestuursprocesrecht", "bestuursrecht_milieurecht"},
	"crvb": {"bestuursrecht_socialezekerheidsrecht", "bestuursrecht_socialezekerheidsrecht", "bestuursrecht_ambtenarenrecht"},
	"cbb":  {"bestuursrecht_mededingingsrecht", "bestuursrecht_europeesbestuursrecht", "bestuursrecht_energierecht"},
}

func leafIndex(id string) int16 {
	for i, l := range leaves {
		if l.ID == psi+"rechtsgebied#"+id {
			return int16(i)
		}
	}
	return 0
}

func fillRuling(rnd *rand.Rand, r *ruling, c *instantie) {
	if ls, ok := courtLeaves[c.kind]; ok {
		r.Subject = leafIndex(ls[rnd.IntN(len(ls))])
	} else {
		areas := courtAreas[c.kind]
		cands := leavesOf(areas[rnd.IntN(len(areas))])
		r.Subject = int16(cands[rnd.IntN(len(cands))])
	}
	if rnd.IntN(6) == 0 {
		cands := leavesOf(leaves[r.Subject].Parent[len(psi+"rechtsgebied#"):])
		if s := int16(cands[rnd.IntN(len(cands))]); s != r.Subject {
			r.Subject2 = s
		}
	}
	r.Type = 'U'
	if c.kind == "phr" {
		r.Type = 'C'
	}
	y := r.Date.Year()
	docShare := 55
	if y >= 2013 {
		docShare = 85
	}
	r.HasDoc = rnd.IntN(100) < docShare
	r.Summary = r.HasDoc && rnd.IntN(10) < 8
	r.Issued = r.Date.AddDate(0, 0, 1+rnd.IntN(45))
	if y < 2013 {
		r.Issued = r.Date.AddDate(0, 0, 1+rnd.IntN(200))
	}
	mod := r.Issued.Add(time.Duration(8*3600+rnd.IntN(9*3600)) * time.Second)
	r.Published = mod
	switch {
	case y < 2013 && r.Issued.Before(massConversion) && rnd.IntN(10) < 7:
		mod = massConversion.Add(time.Duration(rnd.IntN(7200)) * time.Second)
	case rnd.IntN(8) == 0:
		mod = mod.AddDate(0, 0, 1+rnd.IntN(500)) // metadata corrected later
	}
	r.Modified = mod.UTC()
	switch n := rnd.IntN(400); {
	case n == 0:
		r.Deleted = 'e'
	case n < 3:
		r.Deleted = 'd'
	}
	if r.Deleted != 0 {
		// Withdrawn some time after publication: a tombstone from then on.
		r.HadDoc, r.HasDoc = r.HasDoc, false
		r.Modified = r.Published.AddDate(0, 0, 1+rnd.IntN(300))
	}
	r.CaseNo = caseNumber(rnd, r, c)
}

var crvbLaws = []string{"WWB", "WIA", "AW", "ZW", "WMO", "PW", "WW", "AOW", "WAJONG"}

func caseNumber(rnd *rand.Rand, r *ruling, c *instantie) string {
	yy := r.Date.Year() % 100
	area := leaves[r.Subject].Parent
	switch c.kind {
	case "hr", "phr":
		return fmt.Sprintf("%02d/%05d", yy, rnd.IntN(4000))
	case "rvs":
		return fmt.Sprintf("%d%06d/1/A%d", r.Date.Year(), rnd.IntN(9999), 1+rnd.IntN(4))
	case "crvb":
		return fmt.Sprintf("%02d/%d %s", yy, 100+rnd.IntN(9000), crvbLaws[rnd.IntN(len(crvbLaws))])
	case "cbb":
		return fmt.Sprintf("AWB %02d/%d", yy, 10+rnd.IntN(900))
	case "hof":
		switch area {
		case psi + "rechtsgebied#strafRecht":
			return fmt.Sprintf("%02d-%06d-%02d", 20+rnd.IntN(4), rnd.IntN(999999), yy)
		case psi + "rechtsgebied#bestuursrecht":
			return fmt.Sprintf("BK-%02d/%05d", yy, rnd.IntN(2000))
		}
		return fmt.Sprintf("200.%03d.%03d/01", rnd.IntN(400), rnd.IntN(1000))
	}
	code := c.Abbr[2:5]
	switch area {
	case psi + "rechtsgebied#strafRecht":
		return fmt.Sprintf("%02d/%06d-%02d", 1+rnd.IntN(99), rnd.IntN(999999), yy)
	case psi + "rechtsgebied#bestuursrecht", psi + "rechtsgebied#internationaalPubliekrecht":
		return fmt.Sprintf("%s %02d/%d", code, yy, 100+rnd.IntN(9000))
	}
	if rnd.IntN(3) == 0 {
		return fmt.Sprintf("%07d CV EXPL %02d-%d", rnd.IntN(9999999), yy, rnd.IntN(20000))
	}
	return fmt.Sprintf("C/%02d/%06d / HA ZA %02d-%d", 1+rnd.IntN(20), rnd.IntN(999999), yy, rnd.IntN(1500))
}

// title is the Atom entry title: "ECLI, court, dd-mm-yyyy, case number".
func (r *ruling) title() string {
	return r.ECLI + ", " + r.court().Naam + ", " + r.Date.Format("02-01-2006") + ", " + r.CaseNo
}

// typeName is the dcterms:type value.
func (r *ruling) typeName() string {
	if r.Type == 'C' {
		return "Conclusie"
	}
	return "Uitspraak"
}

// summary returns the inhoudsindicatie, "" if none.
func (r *ruling) summary(seed int64) string {
	if !r.Summary {
		return ""
	}
	rnd := corpus.Rand(seed, "rs-inh", r.ECLI)
	var b strings.Builder
	b.WriteString(leaves[r.Subject].Naam)
	b.WriteString(".")
	for i, n := 0, 1+rnd.IntN(3); i < n; i++ {
		b.WriteByte(' ')
		b.WriteString(corpus.Sentence(rnd))
	}
	return b.String()
}

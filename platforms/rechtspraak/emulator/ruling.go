package emulator

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

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

// leafOfID finds a second-level area by its id without the prefix.
var leafOfID = func() map[string]int8 {
	m := map[string]int8{}
	for i, l := range leaves {
		m[strings.TrimPrefix(l.ID, psi+"rechtsgebied#")] = int8(i)
	}
	return m
}()

// massConversionDay is the day of massConversion.
var massConversionDay = epochDay(massConversion)

// fillRuling draws what the index keeps of a ruling whose court and
// decision date are set: areas, theme, type, whether a document and a
// summary exist, its publication and modifications, and a withdrawal.
func fillRuling(rnd *rand.Rand, r *ruling, c *instantie) {
	if ls, ok := courtLeaves[c.kind]; ok {
		r.subject = leafOfID[ls[rnd.IntN(len(ls))]]
	} else {
		areas := courtAreas[c.kind]
		cands := leavesOf(areas[rnd.IntN(len(areas))])
		r.subject = int8(cands[rnd.IntN(len(cands))])
	}
	if rnd.IntN(6) == 0 {
		cands := leavesOf(leaves[r.subject].Parent[len(psi+"rechtsgebied#"):])
		if s := int8(cands[rnd.IntN(len(cands))]); s != r.subject {
			r.subject2 = s
		}
	}
	r.theme = pickTheme(rnd, r.subject)
	r.kind = 'U'
	if c.kind == "phr" {
		r.kind = 'C'
	}
	old := r.year < 2013
	docShare := 85
	if old {
		docShare = 55
	}
	doc := rnd.IntN(100) < docShare
	if doc {
		r.flags |= hasDoc
		if rnd.IntN(10) < 8 {
			r.flags |= hasSummary
		}
	}
	delay := int32(45)
	if old {
		delay = 200
	}
	r.issued = r.date + 1 + rnd.Int32N(delay)
	// Published during office hours of the publication day.
	r.published = int64(r.issued)*86400 + int64(8*3600+rnd.IntN(9*3600))
	r.modified = r.published
	switch {
	case old && r.issued <= massConversionDay && rnd.IntN(10) < 7:
		r.modified = massConversion.Unix() + rnd.Int64N(7200)
	case rnd.IntN(8) == 0:
		r.modified += (1 + rnd.Int64N(500)) * 86400 // metadata corrected later
	}
	switch n := rnd.IntN(400); {
	case n == 0:
		r.deleted = 'e'
	case n < 3:
		r.deleted = 'd'
	}
	if r.deleted != 0 {
		// Withdrawn some time after publication: a tombstone from then on.
		if doc {
			r.flags |= hadDoc
		}
		r.flags &^= hasDoc
		r.modified = r.published + (1+rnd.Int64N(300))*86400
	}
}

var crvbLaws = []string{"WWB", "WIA", "AW", "ZW", "WMO", "PW", "WW", "AOW", "WAJONG"}

// caseNumber writes a case number in the form of the court and area.
func caseNumber(rnd *rand.Rand, r *ruling) string {
	c := r.instance()
	y := int(r.year)
	yy := y % 100
	area := leaves[r.subject].Parent
	switch c.kind {
	case "hr", "phr":
		return fmt.Sprintf("%02d/%05d", yy, rnd.IntN(4000))
	case "rvs":
		return fmt.Sprintf("%d%06d/1/A%d", y, rnd.IntN(9999), 1+rnd.IntN(4))
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

// unixTime is a ruling's stored time as a time.Time in UTC.
func unixTime(s int64) time.Time { return time.Unix(s, 0).UTC() }

package emulator

import (
	"fmt"
	"net/http"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// serveList serves /Waardelijst/<name> (name lowercased).
func (h *handler) serveList(w http.ResponseWriter, r *http.Request, name string) {
	var body string
	switch name {
	case "instanties":
		body = instantiesXML("Instanties", allInstanties())
	case "instantiesbuitenlands":
		body = instantiesXML("InstantiesBuitenlands", foreignInstances)
	case "rechtsgebieden":
		body = rechtsgebiedenXML()
	case "proceduresoorten":
		body = pairsXML("Proceduresoorten", "Proceduresoort", psi+"procedure#", proceduresoorten)
	case "formelerelaties":
		body = pairsXML("FormeleRelaties", "FormeleRelatie", psi, formeleRelaties)
	case "nietnederlandseuitspraken":
		body = h.foreignRulingsXML()
	default:
		notFound(w, r)
		return
	}
	writeXML(w, r, http.StatusOK, body)
}

func instantiesXML(root string, list []instantie) string {
	b := &xb{}
	b.raw(`<?xml version="1.0" encoding="utf-8"?>` + "\n<" + root + ">\n")
	for _, in := range list {
		b.raw("    <Instantie>\n        ")
		b.el("Identifier", in.ID)
		b.raw("\n        ")
		b.el("Naam", in.Naam)
		if in.Abbr != "" {
			b.raw("\n        ")
			b.el("Afkorting", in.Abbr)
		}
		b.raw("\n        ")
		b.el("Type", in.Type)
		b.raw("\n        ")
		b.el("BeginDate", in.Begin)
		if in.End != "" {
			b.raw("\n        ")
			b.el("EndDate", in.End)
		}
		b.raw("\n    </Instantie>\n")
	}
	b.raw("</" + root + ">\n")
	return b.String()
}

func rechtsgebiedenXML() string {
	b := &xb{}
	b.raw(`<?xml version="1.0" encoding="utf-8"?>` + "\n<Rechtsgebieden>\n")
	for _, top := range rechtsgebieden {
		b.raw("    <Rechtsgebied>\n        ")
		b.el("Identifier", top.ID)
		b.raw("\n        ")
		b.el("Naam", top.Naam)
		b.raw("\n")
		for _, s := range top.Sub {
			b.raw("        <Rechtsgebied>\n            ")
			b.el("Identifier", s.ID)
			b.raw("\n            ")
			b.el("Naam", s.Naam)
			b.raw("\n        </Rechtsgebied>\n")
		}
		b.raw("    </Rechtsgebied>\n")
	}
	b.raw("</Rechtsgebieden>\n")
	return b.String()
}

func pairsXML(root, item, prefix string, pairs [][2]string) string {
	b := &xb{}
	b.raw(`<?xml version="1.0" encoding="utf-8"?>` + "\n<" + root + ">\n")
	for _, p := range pairs {
		b.raw("    <" + item + ">\n        ")
		b.el("Identifier", prefix+p[0])
		b.raw("\n        ")
		b.el("Naam", p[1])
		b.raw("\n    </" + item + ">\n")
	}
	b.raw("</" + root + ">\n")
	return b.String()
}

// foreignRulingsXML lists rulings of foreign and European courts that
// carry a Dutch LJN: ECLI, LJN and modification time.
func (h *handler) foreignRulingsXML() string {
	r := corpus.Rand(h.cfg.Seed, "rs-nnu")
	b := &xb{}
	b.raw(`<?xml version="1.0" encoding="utf-8"?>` + "\n<NietNederlandseUitspraken>\n")
	from := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2012, 12, 31, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 60; i++ {
		d := corpus.Date(r, from, to)
		var ecli string
		switch r.IntN(3) {
		case 0:
			ecli = fmt.Sprintf("ECLI:CE:ECHR:%d:%02d%02dJUD%09d", d.Year(), d.Month(), d.Day(), r.IntN(1e9))
		case 1:
			ecli = fmt.Sprintf("ECLI:EU:C:%d:%d", d.Year(), 1+r.IntN(800))
		default:
			ecli = fmt.Sprintf("ECLI:EU:T:%d:%d", d.Year(), 1+r.IntN(600))
		}
		b.raw("    <NietNederlandseUitspraak>\n        ")
		b.el("Identifier", ecli)
		b.raw("\n        ")
		b.el("LJN", ljn(100000+r.IntN(400000)))
		b.raw("\n        ")
		b.el("Modified", massConversion.Add(time.Duration(r.IntN(3600))*time.Second).Format("2006-01-02T15:04:05"))
		b.raw("\n    </NietNederlandseUitspraak>\n")
	}
	b.raw("</NietNederlandseUitspraken>\n")
	return b.String()
}

package bwb

import (
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/adapters"
)

// FetchParams ask for one regulation: the version in force on Date (the
// one in force today when empty), whole or only one article or chapter.
type FetchParams struct {
	ID      string
	Date    string // YYYY-MM-DD
	Article string
	Chapter string
}

// Law is a fetched version of a regulation, or one part of it.
type Law struct {
	// Document holds the text asked for (the whole version, or the part)
	// and, as references, the publications that text came from.
	Document adapters.Document
	Version  Version
	Part     *Part // nil: the whole version
	// Sources are the publications the version (or the part) came from.
	Sources []Publication
	// Publications are all the publications its brondata names.
	Publications []Publication
}

// check refuses what needs no platform call to refuse: a malformed
// identifier or date, an empty article.
func (p FetchParams) check() (FetchParams, error) {
	id, err := ValidID(p.ID)
	if err != nil {
		return p, &adapters.InvalidError{Err: err}
	}
	p.ID = id
	if p.Date, err = adapters.ParseDate("date", p.Date); err != nil {
		return p, &adapters.InvalidError{Err: err}
	}
	p.Article, p.Chapter = strings.TrimSpace(p.Article), strings.TrimSpace(p.Chapter)
	for name, v := range map[string]string{"article": p.Article, "chapter": p.Chapter} {
		if v != "" && number(v) == "" {
			return p, &adapters.InvalidError{Err: fmt.Errorf("%s %q names no number: write it as 3, 3:40 or 2a (a chapter also as Hoofdstuk 2 or § 1)", name, adapters.Cut(v, 40))}
		}
	}
	return p, nil
}

// Fetch reads the regulation's manifest, picks the version in force on
// p.Date (or today), reads that version and cuts out the part asked for.
// Errors: *adapters.InvalidError before any call; adapters.ErrNoDocument
// (wrapped) when the repository holds no such regulation; a *DateError
// when no version was in force that day, after the manifest only; a
// *PartError naming the parts there are; a failed call as get returns
// it; a *adapters.ParseError for an answer that does not parse.
func Fetch(get func(adapters.Request) ([]byte, error), p FetchParams, today string) (Law, error) {
	p, err := p.check()
	if err != nil {
		return Law{}, err
	}
	mr, _ := ManifestRequest(p.ID)
	body, err := get(mr)
	if adapters.KindOf(err) == adapters.KindNotFound {
		return Law{}, fmt.Errorf("%w: the Basiswettenbestand holds no regulation %s; take an identifier from bwb_search", adapters.ErrNoDocument, p.ID)
	}
	if err != nil {
		return Law{}, err
	}
	m, err := adapters.Parsed(ParseManifest(body, p.ID))
	if err != nil {
		return Law{}, err
	}
	v := m.Current(today)
	if p.Date != "" {
		if v, err = m.InForceOn(p.Date); err != nil {
			return Law{}, err
		}
	}
	tr, err := ToestandRequest(p.ID, v)
	if err != nil {
		return Law{}, &adapters.ParseError{Err: err}
	}
	if body, err = get(tr); err != nil {
		return Law{}, err
	}
	t, err := adapters.Parsed(ParseToestand(body))
	if err != nil {
		return Law{}, err
	}
	if t.ID != p.ID {
		return Law{}, &adapters.ParseError{Err: fmt.Errorf("the version of %s holds regulation %q", p.ID, adapters.Cut(t.ID, 40))}
	}
	law, err := read(t, v, p)
	if err == nil && p.Chapter == "" {
		// The URI pins the version read (its first day in force); a
		// chapter has no place in it, so a chapter's read keeps none.
		law.Document.URI = ResourceURI(t.ID, v.From, p.Article)
	}
	return law, err
}

// read cuts the part p asks for out of version v's toestand t.
func read(t *Toestand, v Version, p FetchParams) (Law, error) {
	law := Law{Version: v, Publications: t.Publications()}
	d := adapters.Document{ID: t.ID, Type: t.Kind, Title: t.Title, Date: v.From,
		Meta: map[string]string{"version": v.Label, "in_force_from": v.From, "in_force_until": v.Until}}
	d.SetURL(PageURL(t.ID, v.From)) // the version's date is the answer's
	pubs := law.Publications
	switch {
	case p.Article != "":
		part, err := t.Article(p.Article, p.Chapter)
		if err != nil {
			return Law{}, err
		}
		law.Part = &part
	case p.Chapter != "":
		part, err := t.Chapter(p.Chapter)
		if err != nil {
			return Law{}, err
		}
		law.Part = &part
	}
	if law.Part != nil {
		d.Text, law.Sources, pubs = law.Part.Text, law.Part.Sources, law.Part.Publications
		d.Meta["part"] = law.Part.Label
		if law.Part.InForce != "" {
			d.Meta["part_in_force_from"] = law.Part.InForce
		}
	} else {
		d.Text, law.Sources = t.Text(), t.Sources()
	}
	var came []string
	for _, s := range law.Sources {
		came = append(came, s.Label)
	}
	if len(came) > 0 {
		d.Meta["came_from"] = strings.Join(came, "; ")
	}
	d.References = References(pubs)
	on := p.Date
	if on == "" {
		on = v.From
	}
	if law.Part != nil {
		d.Citation = Citation(t.name(), law.Part.Kind, law.Part.Label, on)
	} else {
		d.Citation = Citation(t.name(), "", "", on)
	}
	law.Document = d
	return law, nil
}

package tk

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
	"github.com/besluitbron/besluitbron/platforms/tk/feed"
	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
)

// One record of the Kamer's data as an MCP resource (issue 37, point 3):
// besluitbron://tk/entiteit/{guid} is any SyncFeed entity (an activiteit,
// besluit, zaak, agendapunt, stemming, …) by its GUID. The activity,
// decision and vote steps of a dossier's timeline have no document
// behind them, only such an entity, so this is the resource their URI
// names; its links are URIs of the same kind, so an assistant walks
// Besluit→Zaak, Besluit→Agendapunt→Activiteit by reading them.
//
// It is read from the replica where BesluitBron keeps the SyncFeed and
// holds the entity (entity_replica.go); otherwise from the SyncFeed's
// Entiteiten/<guid>, one request through the cache and the Kamer's
// budget, the route the fetch of a document by GUID takes when OData
// fails (fetch.go).

// entityTemplate is the resource template of one SyncFeed entity.
const entityTemplate = "besluitbron://tk/entiteit/{guid}{?page}"

// Bounds of an entity as a document: an entity is a few fields and
// links (the largest real ones, a zaak with a long title, a few
// kilobytes), but the feed's answer is not ours, so a hostile one with
// thousands of fields or links gives a text of tens of kilobytes at
// most, not megabytes.
const (
	maxEntityFields = 60   // fields in the text
	maxMetaFields   = 40   // fields in Meta
	maxFieldRunes   = 1500 // a field's value in the text
	maxMetaRunes    = 300  // a field's value in Meta
	maxNameRunes    = 60   // a field's, a link's or a category's name
	maxEntityLinks  = 100  // links in the text
)

// entityKind is the resource kind of the SyncFeed's entities, answered
// from parliament where it holds them (nil: always the platform).
func entityKind(parliament ParliamentEntity) adapters.ResourceKind {
	return adapters.ResourceKind{
		Template: entityTemplate, Name: "tk-entity", Title: "Parliamentary record (Tweede Kamer SyncFeed entity)",
		Description: entityDescription(),
		Read: func(ctx context.Context, env adapters.Env, vars map[string]string) (adapters.Document, error) {
			raw, err := adapters.Var(vars, "guid")
			if err != nil {
				return adapters.Document{}, err
			}
			return readEntity(ctx, env, parliament, raw)
		},
	}
}

// entityDescription says what the resource holds and what a read costs.
func entityDescription() string {
	return "A record of the Tweede Kamer's data by its GUID, as the Kamer's SyncFeed gives it: an activiteit (a debate, a committee meeting, a voting session), " +
		"a besluit (a decision and its result), a zaak (a motion, a bill, an amendment), an agendapunt, a stemming, a kamerstukdossier, …: its fields, " +
		"and its links to other records, each as a besluitbron://tk/entiteit/ URI (a besluit links its zaken and its agendapunt, an agendapunt its activiteit). " +
		"The activity, decision and vote steps of dossier_timeline carry these URIs. " +
		"Cost: where BesluitBron keeps the Kamer's SyncFeed and its replica has completed a pass and holds the record, no platform request (the read says so, and how complete the replica is); " +
		"otherwise one request to the SyncFeed, through BesluitBron's cache (a repeat costs nothing) and the Kamer's budget of " + tableRow.Budget.Allowance() + " (a request is one unit) shared by all users."
}

// entityURI is the resource URI of SyncFeed entity guid; "" for anything
// that is not a GUID.
func entityURI(guid string) string {
	if !guidRE.MatchString(guid) {
		return ""
	}
	u, _ := adapters.ExpandURI(entityTemplate, map[string]string{"guid": strings.ToLower(guid)})
	return u
}

// ParseEntityID accepts the GUID of a SyncFeed entity, in either case,
// and gives it in lower case, as the feed and the replica write it.
func ParseEntityID(id string) (string, error) {
	id = strings.TrimSpace(id)
	if err := adapters.CheckIDChars(id); err != nil {
		return "", err
	}
	if !guidRE.MatchString(id) {
		return "", fmt.Errorf("%q is not the GUID of a Tweede Kamer record (such as 6b15c18f-fdc5-4ea4-bee2-a556e94d7682): "+
			"take the URI from a dossier_timeline step or from another record's links; a document by its number is besluitbron://tk/document/2023D41173", adapters.Cut(id, 80))
	}
	return strings.ToLower(id), nil
}

// readEntity reads entity raw: from parliament when it holds it, else
// from the platform, the provenance saying which and why.
func readEntity(ctx context.Context, env adapters.Env, parliament ParliamentEntity, raw string) (adapters.Document, error) {
	guid, err := ParseEntityID(raw)
	if err != nil {
		return adapters.Document{}, &adapters.InvalidError{Err: err}
	}
	why := ""
	if parliament != nil {
		e, provenance, ok, reason := parliament.Entity(ctx, guid)
		if ok {
			return entityDocument(e, provenance), nil
		}
		why = reason
	}
	e, err := askEntity(env.Bind(ctx, platforms.TK), guid)
	if err != nil {
		return adapters.Document{}, err
	}
	provenance := "asked the Tweede Kamer's SyncFeed through the cache"
	if why != "" {
		provenance += ": " + why
	}
	return entityDocument(e, provenance), nil
}

// askEntity reads entity guid from the SyncFeed. An entity the platform
// does not know (404) or removed (verwijderd="true") is ErrNoDocument,
// an answer that is not the entity asked a *ParseError.
func askEntity(get func(adapters.Request) ([]byte, error), guid string) (localindex.Entity, error) {
	body, err := get(EntityRequest(guid))
	if adapters.KindOf(err) == adapters.KindNotFound {
		return localindex.Entity{}, adapters.ErrNoDocument
	}
	if err != nil {
		return localindex.Entity{}, err
	}
	// The replica refuses a feed entry over the cap (feed.ParsePage); an
	// entity read alone is held to the same.
	if len(body) > feed.MaxEntityBytes {
		return localindex.Entity{}, &adapters.ParseError{Err: fmt.Errorf("the SyncFeed's entity %s is %d bytes, over the cap of %d", guid, len(body), feed.MaxEntityBytes)}
	}
	e, err := feed.ParseEntity(body)
	if err != nil {
		return localindex.Entity{}, &adapters.ParseError{Err: err}
	}
	if e.ID != guid {
		return localindex.Entity{}, &adapters.ParseError{Err: fmt.Errorf("the SyncFeed answered entity %s for %s", e.ID, guid)}
	}
	if e.Deleted {
		return localindex.Entity{}, adapters.ErrNoDocument
	}
	return localindex.Entity{ID: e.ID, Category: e.Category, Fields: e.Fields, Refs: e.Refs, Updated: e.Updated}, nil
}

// entityDocument is entity e as a document, read as provenance says.
func entityDocument(e localindex.Entity, provenance string) adapters.Document {
	provenance = adapters.Cut(provenance, 600)
	d := adapters.Document{ID: e.ID, Type: adapters.Cut(e.Category, maxNameRunes), Title: entityTitle(e), Date: entityDay(e),
		URL: entityURL(e.ID), URI: entityURI(e.ID), Citation: entityCitation(e), Meta: map[string]string{}}
	for _, name := range slices.Sorted(maps.Keys(e.Fields))[:min(len(e.Fields), maxMetaFields)] {
		if v := adapters.Squash(e.Fields[name]); v != "" {
			d.Meta[adapters.Cut(name, maxNameRunes)] = adapters.Cut(v, maxMetaRunes)
		}
	}
	// Ours last: a field of the same name does not hide them.
	d.Meta["guid"], d.Meta["category"], d.Meta["provenance"] = e.ID, d.Type, provenance
	d.Text = entityText(e, d, provenance)
	return d
}

// entityTitle is e's title from its fields: its kind of record and
// number, its own kind (Soort, BesluitSoort) and its subject, read as
// the Kamer names them in any case (feedField).
func entityTitle(e localindex.Entity) string {
	title := capitalized(adapters.Cut(e.Category, maxNameRunes))
	if n := entityNummer(e); n != "" {
		title += " " + n
	}
	kind := adapters.Cut(adapters.Squash(cmp.Or(feedField(e, "soort"), feedField(e, "besluitSoort"))), 80)
	subject := ""
	for _, f := range []string{"onderwerp", "titel", "besluitTekst", "naamNL", "naam", "actorNaam", "actorFractie", "achternaam"} {
		if subject = adapters.Squash(feedField(e, f)); subject != "" {
			break
		}
	}
	if kind != "" && !strings.EqualFold(kind, subject) {
		title += " (" + kind + ")"
	}
	if subject != "" {
		title += ": " + subject
	}
	return adapters.Cut(title, 300)
}

// entityNummer is the Kamer's own number of e (2022A07659, 2022Z17826,
// a document's 2023D41173), "" when it has none of that form.
func entityNummer(e localindex.Entity) string {
	n := strings.TrimSpace(cmp.Or(feedField(e, "nummer"), feedField(e, "documentNummer")))
	if !nummerRE.MatchString(n) {
		return ""
	}
	return n
}

// entityDay is the day e is dated (YYYY-MM-DD): an activity's or a
// document's Datum, an agendapunt's Aanvangstijd, a zaak's GestartOp;
// "" when it has none that reads.
func entityDay(e localindex.Entity) string {
	for _, f := range []string{"datum", "aanvangstijd", "gestartOp"} {
		if d := day(feedField(e, f)); len(d) == 10 {
			if _, err := time.Parse(time.DateOnly, d); err == nil {
				return d
			}
		}
	}
	return ""
}

// entityCitation cites e by the Kamer's own number (a document as
// Citation does); "" for a record without one, such as a besluit.
func entityCitation(e localindex.Entity) string {
	if e.Category == "document" {
		return Citation("", feedField(e, "vergaderjaar"), feedField(e, "soort"), entityNummer(e), entityDay(e))
	}
	return recordCitation(e.Category, entityNummer(e), entityDay(e))
}

// recordCitation cites a record of the Kamer's by its kind, its own
// number and its day (YYYY-MM-DD, left out when it is none): "Tweede
// Kamer, activiteit 2022A07659 (4 oktober 2022)". The data gives no
// Handelingen reference of it. Without a number of the Kamer's form
// there is none.
func recordCitation(what, nummer, date string) string {
	if !nummerRE.MatchString(nummer) || what == "" {
		return ""
	}
	c := "Tweede Kamer, " + what + " " + nummer
	if d := adapters.DutchDate(date); d != "" {
		c += " (" + d + ")"
	}
	return c
}

// entityText is e as readable markdown: what it is and where it was
// read, its fields, and its links as the resource URIs of the records
// they name.
func entityText(e localindex.Entity, d adapters.Document, provenance string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "A record of the Tweede Kamer's data: %s %s, as the Kamer's SyncFeed gives it.\n\n", d.Type, e.ID)
	fmt.Fprintf(&b, "- Read from: %s\n", provenance)
	if e.Updated != "" {
		fmt.Fprintf(&b, "- Published by the feed: %s\n", adapters.Cut(e.Updated, 40))
	}
	if n := entityNummer(e); e.Category == "document" && n != "" {
		fmt.Fprintf(&b, "- As a document (its metadata and file): %s\n", documentURI(n))
	}

	b.WriteString("\n## Fields\n\n")
	shown, left := 0, 0
	for _, name := range slices.Sorted(maps.Keys(e.Fields)) {
		v := strings.TrimSpace(e.Fields[name])
		switch {
		case v == "":
		case shown == maxEntityFields:
			left++
		default:
			shown++
			fmt.Fprintf(&b, "- %s: %s\n", adapters.Cut(name, maxNameRunes), adapters.Cut(adapters.Squash(v), maxFieldRunes))
		}
	}
	switch {
	case left > 0:
		fmt.Fprintf(&b, "(%d more fields left out)\n", left)
	case shown == 0:
		b.WriteString("(none)\n")
	}

	b.WriteString("\n## Links\n\n")
	links, other := 0, 0
	for _, name := range slices.Sorted(maps.Keys(e.Refs)) {
		for _, id := range e.Refs[name] {
			u := entityURI(strings.ToLower(id))
			switch {
			case u == "":
				other++ // not a GUID: nothing to read it by
			case links < maxEntityLinks:
				links++
				fmt.Fprintf(&b, "- %s: %s\n", adapters.Cut(name, maxNameRunes), u)
			default:
				other++
			}
		}
	}
	switch {
	case links == 0 && other == 0:
		// The feed links a record to the ones before it: a besluit names
		// its zaken, a zaak none of its besluiten.
		b.WriteString("(none)\n")
	case links > 0:
		b.WriteString("\nEach link is a record of its own, read by its URI.\n")
	}
	if other > 0 {
		fmt.Fprintf(&b, "(%d more links left out)\n", other)
	}
	return b.String()
}

// capitalized is s with its first letter in upper case: a category as a
// title starts (besluit: Besluit).
func capitalized(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

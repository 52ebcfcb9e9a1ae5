// Package tk builds requests for the Tweede Kamer's Gegevensmagazijn and
// parses its answers: documents, committees (Commissie) and parliamentary
// groups (Fractie) through OData, and documents through the SyncFeed when
// the OData route fails.
//
// The OData root is configuration (DefaultRoot is the new version's), and
// field names are not hard-coded: they are resolved from the service's
// $metadata against a table of old and new names (fields.go), so the next
// rename needs a table entry and no code change.
package tk

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	// Europe/Amsterdam day bounds must not depend on the host's zoneinfo
	// (the container image has none).
	_ "time/tzdata"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// DefaultRoot is the OData service root of the version live since
// 2026-06-12. The Kamer's announcement (OpenDataPortaal issue 175) gives
// no URL that we have a copy of; /OData/v5 comes from one third-party
// client and is unconfirmed, hence configurable (tk_odata_root).
const DefaultRoot = "/OData/v5"

// FeedRoot is the SyncFeed's root; the new OData version left it unchanged.
const FeedRoot = "/SyncFeed/2.0"

// PageSize is the most rows one request asks for: v5 answers 400 above 100.
const PageSize = 100

// MaxPages bounds the pages one list or search walks.
const MaxPages = 20

// Public is the public base, for links.
const Public = "https://gegevensmagazijn.tweedekamer.nl"

var (
	guidRE   = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	nummerRE = regexp.MustCompile(`^[0-9]{4}[A-Z][0-9]{3,6}$`)
	// documentInText is a document number (D) in an id or a link: at the
	// start, or after = or / (document.html?nummer=..., getdoc/...).
	documentInText = regexp.MustCompile(`(?i)(?:^|[=/])([0-9]{4}D[0-9]{3,6})\b`)
	rootRE         = regexp.MustCompile(`^(/[A-Za-z0-9._~-]+)+$`)
)

// CheckRoot checks a configured OData root: a path such as /OData/v5,
// without query, trailing slash or dot segments.
func CheckRoot(root string) error {
	if !rootRE.MatchString(root) {
		return fmt.Errorf("OData root %q must be a path such as %s (segments of letters, digits, '.', '_', '~', '-'; no trailing /)", root, DefaultRoot)
	}
	for _, seg := range strings.Split(root, "/") {
		if seg == "." || seg == ".." {
			return fmt.Errorf("OData root %q must not hold . or .. segments", root)
		}
	}
	return nil
}

// MetadataRequest asks for the service's $metadata (a list kind in the
// platform cache, so it is fetched about once a day).
func MetadataRequest(root string) adapters.Request {
	return adapters.Request{Method: "GET", Path: root + "/$metadata"}
}

// odataQuery builds a query string, keeping "$" and the OData syntax
// readable the way the platform writes it, escaping the rest.
func odataQuery(pairs ...string) string {
	var sb strings.Builder
	for i := 0; i+1 < len(pairs); i += 2 {
		if sb.Len() > 0 {
			sb.WriteByte('&')
		}
		sb.WriteString(pairs[i])
		sb.WriteByte('=')
		sb.WriteString(escape(pairs[i+1]))
	}
	return sb.String()
}

func escape(v string) string {
	var sb strings.Builder
	for _, b := range []byte(v) {
		switch {
		case b >= 'a' && b <= 'z', b >= 'A' && b <= 'Z', b >= '0' && b <= '9', strings.IndexByte("-_.~$,()':", b) >= 0:
			sb.WriteByte(b)
		default:
			fmt.Fprintf(&sb, "%%%02X", b)
		}
	}
	return sb.String()
}

func quote(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// amsterdam is the zone of the platform's Datum values, which carry the
// Dutch offset (2022-10-04T00:00:00+02:00).
var amsterdam = func() *time.Location {
	loc, err := time.LoadLocation("Europe/Amsterdam")
	if err != nil {
		panic("tk: no Europe/Amsterdam zone despite time/tzdata: " + err.Error())
	}
	return loc
}()

// dayStart is midnight at the start of day (YYYY-MM-DD) in Amsterdam, as
// an OData DateTimeOffset literal with its offset.
func dayStart(day string, addDays int) (string, error) {
	t, err := time.ParseInLocation("2006-01-02", day, amsterdam)
	if err != nil {
		return "", err
	}
	t = time.Date(t.Year(), t.Month(), t.Day()+addDays, 0, 0, 0, 0, amsterdam)
	return t.Format("2006-01-02T15:04:05-07:00"), nil
}

// SearchParams are the arguments of a document search.
type SearchParams struct {
	Query    string // words matched in Titel or Onderwerp
	Soort    string // document kind, e.g. Motie, Brief regering
	DateFrom string
	DateTo   string
	Limit    int
	Offset   int
}

// Check checks p before anything is asked of the platform.
func (p SearchParams) Check() error {
	if p.Limit < 1 || p.Limit > PageSize {
		return fmt.Errorf("limit %d is out of range: use 1 to %d", p.Limit, PageSize)
	}
	if p.Offset < 0 || p.Offset > 100000 {
		return fmt.Errorf("offset %d is out of range: use 0 to 100000", p.Offset)
	}
	from, _, err := adapters.ParseDates(p.DateFrom, p.DateTo)
	if err != nil {
		return err
	}
	words := strings.Fields(p.Query)
	if len(words) == 0 && p.Soort == "" && from == "" {
		return fmt.Errorf("give a query, a soort or a date_from: an open search over all documents is not useful")
	}
	if len(words) > 8 {
		return fmt.Errorf("query has %d words: use at most 8", len(words))
	}
	return nil
}

// SearchRequest builds GET <root>/Document with a $filter in e's names,
// Europe/Amsterdam day bounds, and an explicit order with Id as the
// tie-breaker (the new version changed the default order).
func SearchRequest(e *Entity, p SearchParams) (adapters.Request, error) {
	if err := p.Check(); err != nil {
		return adapters.Request{}, err
	}
	from, to, _ := adapters.ParseDates(p.DateFrom, p.DateTo)
	titel, onderwerp, datum := e.Name(fTitel), e.Name(fOnderwerp), e.Name(fDatum)
	filter := []string{e.Name(fVerwijderd) + " eq false"}
	for _, w := range strings.Fields(p.Query) {
		filter = append(filter, fmt.Sprintf("(contains(%s,%s) or contains(%s,%s))", titel, quote(w), onderwerp, quote(w)))
	}
	if p.Soort != "" {
		filter = append(filter, e.Name(fSoort)+" eq "+quote(p.Soort))
	}
	if from != "" {
		b, _ := dayStart(from, 0)
		filter = append(filter, datum+" ge "+b)
	}
	if to != "" {
		b, _ := dayStart(to, 1)
		filter = append(filter, datum+" lt "+b)
	}
	opts := []string{"$filter", strings.Join(filter, " and "), "$select", e.selectList()}
	if x := e.expandList(); x != "" {
		opts = append(opts, "$expand", x) // the kamerstuk's dossier (kamerstuk.go)
	}
	opts = append(opts, "$orderby", datum+" desc,"+e.Name(fID)+" desc",
		"$top", strconv.Itoa(p.Limit), "$skip", strconv.Itoa(p.Offset), "$count", "true")
	q := odataQuery(opts...)
	return adapters.Request{Method: "GET", Path: e.root + "/" + e.Set + "?" + q}, nil
}

// DocumentID is a checked document reference: a GUID or a number.
type DocumentID struct {
	GUID   string // lower case, when given as GUID
	Nummer string // upper case, when given as number (2023D41173)
}

// IsNumber tells whether s is a number as the Kamer writes it, in upper
// case: a document's (2023D41173), an activity's (2023A06512).
func IsNumber(s string) bool { return nummerRE.MatchString(s) }

// FindDocumentNumber returns the document number an id or a link names
// (2023D41173; https://berthub.eu/tkconv/document.html?nummer=2023D41173),
// in upper case: the number the Gegevensmagazijn and OpenTK both use for
// the document.
func FindDocumentNumber(text string) (string, bool) {
	if m := documentInText.FindStringSubmatch(text); m != nil {
		return strings.ToUpper(m[1]), true
	}
	return "", false
}

// ParseDocumentID accepts a document GUID or a document number.
func ParseDocumentID(id string) (DocumentID, error) {
	id = strings.TrimSpace(id)
	if err := adapters.CheckIDChars(id); err != nil {
		return DocumentID{}, err
	}
	switch {
	case guidRE.MatchString(id):
		return DocumentID{GUID: strings.ToLower(id)}, nil
	case nummerRE.MatchString(strings.ToUpper(id)):
		return DocumentID{Nummer: strings.ToUpper(id)}, nil
	}
	return DocumentID{}, fmt.Errorf("id %q is neither a document GUID (7a9b77f1-...) nor a document number like 2023D41173", id)
}

// recognize is a document written by its number, 2023D41173, in upper
// case as the fetch takes it (Surface.Recognize). A GUID is not one: it
// does not say whose it is.
func recognize(s string) (string, bool) {
	id, err := ParseDocumentID(s)
	return id.Nummer, err == nil && id.Nummer != ""
}

// DocumentRequest builds the OData request for one document. A GUID is
// filtered on Id rather than addressed as Document(<guid>): key
// addressing is not confirmed for the new version, filtering is.
func DocumentRequest(e *Entity, id DocumentID) adapters.Request {
	f := e.Name(fID) + " eq " + id.GUID
	if id.GUID == "" {
		f = e.Name(fVerwijderd) + " eq false and " + e.Name(fNummer) + " eq " + quote(id.Nummer)
	}
	opts := []string{"$filter", f, "$select", e.selectList()}
	if x := e.expandList(); x != "" {
		// The kamerstuk's dossier, as a search asks it (kamerstuk.go): a
		// document read alone is cited as its hit is.
		opts = append(opts, "$expand", x)
	}
	opts = append(opts, "$orderby", e.Name(fID), "$top", "1")
	return adapters.Request{Method: "GET", Path: e.root + "/" + e.Set + "?" + odataQuery(opts...)}
}

// ErrNoDocument is ParseDocument's answer to an empty result.
var ErrNoDocument = adapters.ErrNoDocument

// row is one OData entity, read through an Entity's names.
type row map[string]json.RawMessage

func (r row) str(e *Entity, key string) string {
	n := e.Name(key)
	if n == "" {
		return ""
	}
	raw, ok := r[n]
	if !ok {
		return ""
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return ""
	}
	return str(v)
}

func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case float64:
		return strconv.FormatFloat(t, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(t)
	}
	return ""
}

// ResourceURL is the SyncFeed link to an entity's file. The SyncFeed is
// unchanged by the new OData version, while OData's /resource is not
// confirmed there, so links use the SyncFeed.
func ResourceURL(guid string) string { return Public + FeedRoot + "/Resources/" + guid }

// document is the adapter's view of one Document, whatever its source.
type document struct {
	ID, Soort, Nummer, Titel, Onderwerp, Datum string
	Vergaderjaar, Organisatie, ContentType     string
	ContentLength, Ondernummer, Registratie    string
	Kamerstuk                                  string // kst-36200-VII-12, when the row names its dossier
}

func docFromRow(e *Entity, r row) document {
	d := document{ID: r.str(e, fID), Soort: r.str(e, fSoort), Nummer: r.str(e, fNummer), Titel: r.str(e, fTitel),
		Onderwerp: r.str(e, fOnderwerp), Datum: r.str(e, fDatum), Vergaderjaar: r.str(e, fVergaderjaar),
		Organisatie: r.str(e, fOrganisatie), ContentType: r.str(e, fContentType), ContentLength: r.str(e, fContentLen),
		Ondernummer: r.str(e, fOndernummer), Registratie: r.str(e, fRegistratie)}
	if d.Ondernummer == "-1" { // v5 writes -1 for "no value"
		d.Ondernummer = ""
	}
	d.Kamerstuk = kamerstukOf(e, r, d.Ondernummer)
	return d
}

func (d document) hit() adapters.Hit {
	title := d.Onderwerp
	if title == "" {
		title = d.Titel
	}
	h := adapters.Hit{ID: d.Nummer, Type: d.Soort, Title: adapters.Squash(title), Date: day(d.Datum), Source: d.Organisatie,
		Kamerstuk: d.Kamerstuk, Citation: d.citation()}
	if h.ID == "" {
		h.ID = d.ID
	}
	if d.Titel != "" && d.Titel != title {
		h.Snippet = adapters.Snippet(d.Titel, adapters.SnippetLen)
	}
	if d.ID != "" {
		// The id is the answer's: a link built from it is held to the
		// same check as a link the answer gives.
		h.SetURL(ResourceURL(d.ID))
	}
	return h
}

func (d document) doc() adapters.Document {
	h := d.hit()
	out := adapters.Document{ID: h.ID, Type: d.Soort, Title: h.Title, Date: h.Date, Source: d.Organisatie, URL: h.URL,
		Citation: h.Citation, Meta: map[string]string{"guid": d.ID}}
	for k, v := range map[string]string{"vergaderjaar": d.Vergaderjaar, "content_type": d.ContentType,
		"content_length": d.ContentLength, "volgnummer": d.Ondernummer, "datum_registratie": day(d.Registratie)} {
		if v != "" {
			out.Meta[k] = v
		}
	}
	if d.Kamerstuk != "" {
		// A kamerstuk is published in Officiële Bekendmakingen under
		// this number, with its text (ob_fetch takes it as is).
		out.References = append(out.References, adapters.Reference{Platform: platforms.OB, ID: d.Kamerstuk,
			Relation: adapters.RelPublishedAs, Label: h.Citation})
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "%s\n", d.Titel)
	if d.Onderwerp != "" {
		fmt.Fprintf(&sb, "Onderwerp: %s\n", d.Onderwerp)
	}
	fmt.Fprintf(&sb, "Soort: %s; nummer: %s; datum: %s\n", d.Soort, d.Nummer, day(d.Datum))
	fmt.Fprintf(&sb, "The Gegevensmagazijn holds this document as a file (%s) at %s; for its text as HTML use the OpenTK fetch tool (opentk_fetch) with number %s.", d.ContentType, h.URL, d.Nummer)
	out.Text = sb.String()
	return out
}

// day is the calendar date of a Datum value: its first ten characters,
// which are the Dutch date because the value carries the Dutch offset.
func day(s string) string {
	if len(s) >= 10 {
		return strings.ToValidUTF8(s[:10], "") // never half a character
	}
	return s
}

type envelope struct {
	Count    *int              `json:"@odata.count"`
	NextLink string            `json:"@odata.nextLink"`
	Value    []json.RawMessage `json:"value"`
}

func parseEnvelope(body []byte) (envelope, error) {
	var env envelope
	if err := json.Unmarshal(body, &env); err != nil {
		return env, fmt.Errorf("Tweede Kamer answer is not OData JSON: %v", err)
	}
	if env.Value == nil {
		return env, fmt.Errorf("Tweede Kamer answer has no value list")
	}
	return env, nil
}

// parseCounted reads an OData answer's rows and the total the service
// counted (@odata.count), or the rows' number where it gives none.
func parseCounted(body []byte) ([]row, int, error) {
	env, err := parseEnvelope(body)
	if err != nil {
		return nil, 0, err
	}
	rows, err := parseRows(env.Value)
	if err != nil {
		return nil, 0, err
	}
	if env.Count != nil {
		return rows, *env.Count, nil
	}
	return rows, len(rows), nil
}

func parseRows(values []json.RawMessage) ([]row, error) {
	out := make([]row, 0, len(values))
	for _, raw := range values {
		var r row
		if err := json.Unmarshal(raw, &r); err != nil || r == nil {
			return nil, fmt.Errorf("Tweede Kamer entity is not a JSON object")
		}
		out = append(out, r)
	}
	return out, nil
}

// ParseDocument parses the answer to DocumentRequest.
func ParseDocument(e *Entity, body []byte) (adapters.Document, error) {
	env, err := parseEnvelope(body)
	if err != nil {
		return adapters.Document{}, err
	}
	rows, err := parseRows(env.Value)
	if err != nil {
		return adapters.Document{}, err
	}
	if len(rows) == 0 {
		return adapters.Document{}, ErrNoDocument
	}
	d := docFromRow(e, rows[0])
	if d.ID == "" {
		return adapters.Document{}, fmt.Errorf("Tweede Kamer document has no %s", e.Name(fID))
	}
	return d.doc(), nil
}

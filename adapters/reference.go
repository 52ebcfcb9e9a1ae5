package adapters

// Reference is a document that another one names, given the way the
// platform that holds it takes it: ID is accepted as is by that
// platform's fetch (<platform>_fetch), Article and Date narrow it where
// the reference names them.
type Reference struct {
	Platform string `json:"platform" jsonschema_description:"Platform key that holds it (bwb, cvdr, ob); its <platform>_fetch tool takes id as is."`
	ID       string `json:"id" jsonschema_description:"Its identifier on that platform."`
	Article  string `json:"article,omitempty" jsonschema_description:"The article the reference names, if any."`
	Date     string `json:"date,omitempty" jsonschema_description:"The date the reference names (the version meant), YYYY-MM-DD, if any."`
	Relation string `json:"relation" jsonschema_description:"How the document relates to it: rests_on, published_as, enacted_by, amended_by or cites."`
	Label    string `json:"label,omitempty" jsonschema_description:"The reference's own words."`
}

// What a document's reference is to it (Reference.Relation).
const (
	// RelRestsOn: a law or regulation the document rests on (a local
	// regulation's dcterms:source).
	RelRestsOn = "rests_on"
	// RelPublishedAs: the document's own publication (a local
	// regulation's Gemeenteblad, dcterms:isFormatOf; a Tweede Kamer
	// kamerstuk's in Officiële Bekendmakingen, kst-36200-VII-12).
	RelPublishedAs = "published_as"
	// RelEnactedBy: the publication that made the law (a toestand's
	// brondata, effect nieuwe-regeling).
	RelEnactedBy = "enacted_by"
	// RelAmendedBy: a publication that changed the law since.
	RelAmendedBy = "amended_by"
	// RelCites: a law a ruling cites (Rechtspraak's dcterms:references).
	RelCites = "cites"
)

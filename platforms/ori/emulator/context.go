package emulator

// The @context object ORI's JsonLDSerializer (ocd_backend/models/
// serializers.py) stores with every item: for each field the item has, the
// term's IRI (a relation also gets "@type":"@id"), plus "@base" (the Ori
// namespace) and the class name mapped to its IRI. The IRIs are the
// namespaces of ocd_backend/models/definitions/__init__.py with the terms
// of schema.py (MediaObject), owl.py (has_organization_name) and org.py
// (Organization).

func term(iri string) map[string]any     { return map[string]any{"@id": iri} }
func relation(iri string) map[string]any { return map[string]any{"@id": iri, "@type": "@id"} }

const (
	nsSchema  = "http://schema.org/"
	nsMeeting = "https://argu.co/ns/meeting/"
	nsOri     = "https://id.openraadsinformatie.nl/"
)

// mediaObjectContext is a MediaObject's @context.
var mediaObjectContext = map[string]any{
	"@base":                 nsOri,
	"MediaObject":           nsSchema + "MediaObject",
	"name":                  term(nsSchema + "name"),
	"url":                   term(nsSchema + "contentUrl"),
	"size_in_bytes":         term(nsSchema + "fileSize"),
	"content_type":          term(nsSchema + "encodingFormat"),
	"original_url":          term(nsSchema + "isBasedOn"),
	"text":                  term(nsSchema + "text"),
	"md_text":               term(nsSchema + "text"),
	"text_pages":            term(nsMeeting + "textPages"),
	"last_discussed_at":     term(nsMeeting + "lastDiscussedAt"),
	"is_referenced_by":      relation("http://purl.org/dc/terms/isReferencedBy"),
	"has_organization_name": relation("http://www.w3.org/2006/vcard/ns#hasOrganizationName"),
}

// organizationContext is an Organization's @context.
var organizationContext = map[string]any{
	"@base":          nsOri,
	"Organization":   "http://www.w3.org/ns/org#Organization",
	"name":           term("http://www.w3.org/2004/02/skos/core#prefLabel"),
	"classification": term("http://www.w3.org/ns/org#classification"),
	"collection":     term("https://argu.co/ns/meta#collection"),
}

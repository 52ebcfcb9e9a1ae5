package mcpkit

// Ref is a document a prompt names: the platform that holds it and its
// id as that platform's fetch tool takes it.
type Ref struct {
	Platform, ID, Category, Date, Article string
}

// The prompt law_behind_decision (package mcp) reads a document and what it
// rests on with the tools of whichever platforms hold them; each platform
// says what its part is through these interfaces.

// Fetcher is a platform whose fetch tool is not <key>_fetch with the id
// alone (an ECLI argument, a date and article, another platform's tool
// that serves the same documents). A platform that is no Fetcher is read
// with <key>_fetch {"id": ...} where the connector offers it.
type Fetcher interface {
	// FetchCall is the call that reads r with the connector's tools; ok
	// is false when the connector offers none that does.
	FetchCall(env Env, r Ref) (call string, ok bool)
}

// ResourcePather is a platform whose resource URIs hold more than the id
// in their path (besluitbron://tk/document/{nummer},
// besluitbron://opentk/{category}/{id}).
type ResourcePather interface {
	// RefOfPath splits a resource URI's escaped path (without its
	// leading slash) into the id's part and the category's.
	RefOfPath(path string) (idPath, category string)
}

// CitationFinder is a platform whose search finds a document by a
// citation no platform recognises (a publication, a law's name).
type CitationFinder interface {
	FindCitationCall(citation string) string
}

// ReferenceReader is a platform whose documents a reference may point to
// (relation rests_on, cites, published_as): it says how its fetch reads
// one, as "platform <key>: <call>".
type ReferenceReader interface {
	ReadReferenceCall() string
}

// LegalBasisFinder is a platform that holds laws or regulations a
// document may rest on: it says how to find one named in a text. The
// connector offers law_behind_decision when it offers one of them.
type LegalBasisFinder interface {
	FindLegalBasisCall() string
}

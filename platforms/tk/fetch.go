package tk

import (
	"errors"

	"github.com/besluitbron/besluitbron/adapters"
)

// Fetch returns the document id names with its metadata, as every
// surface (tk_fetch, the reader) shows it. It asks OData, in the Document
// set of the schema that schema resolves; for a GUID that OData could not
// give (its route failed, its $metadata was unreadable, or it does not
// know the GUID) it asks the SyncFeed, which the OData move of 2026 left
// unchanged. A document neither knows is ErrNoDocument; when the SyncFeed
// fails as well, OData's failure is returned.
func Fetch(id DocumentID, schema func() (*Schema, error), get func(adapters.Request) ([]byte, error)) (adapters.Document, error) {
	d, err := fetchOData(id, schema, get)
	if err == nil || id.GUID == "" {
		return d, err
	}
	body, feedErr := get(EntityRequest(id.GUID))
	if feedErr != nil {
		return adapters.Document{}, err
	}
	d, feedErr = ParseFeedDocument(body)
	switch {
	case feedErr == nil:
		return d, nil
	case errors.Is(feedErr, ErrNoDocument):
		return adapters.Document{}, feedErr
	}
	return adapters.Document{}, err
}

func fetchOData(id DocumentID, schema func() (*Schema, error), get func(adapters.Request) ([]byte, error)) (adapters.Document, error) {
	s, err := schema()
	if err != nil {
		return adapters.Document{}, err
	}
	e, err := s.Entity("Document")
	if err != nil {
		return adapters.Document{}, err
	}
	body, err := get(DocumentRequest(e, id))
	if err != nil {
		return adapters.Document{}, err
	}
	return ParseDocument(e, body)
}

// Package reader fetches one document's full text for the site's reader
// view, per platform, with the same request builders and parsers the MCP
// fetch tools use (adapters/*). It knows nothing of Caddy: every
// platform request goes through a Getter, which the site module points at
// the platform's route (cache, budget and proxy), as the shared session.
package reader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/ob"
	"github.com/besluitbron/besluitbron/adapters/obv"
	"github.com/besluitbron/besluitbron/adapters/opentk"
	"github.com/besluitbron/besluitbron/adapters/ori"
	"github.com/besluitbron/besluitbron/adapters/rechtspraak"
	"github.com/besluitbron/besluitbron/adapters/tk"
	"github.com/besluitbron/besluitbron/caddymodule/platforms"
)

// Getter runs one request against a platform's route and returns the body
// of a 2xx answer; any other outcome is an error, an
// *adapters.RouteError when the route answered.
type Getter func(ctx context.Context, platform string, r adapters.Request) ([]byte, error)

// ErrInvalid marks an id or platform the reader refuses before asking
// anything (the caller answers 400).
var ErrInvalid = errors.New("invalid document reference")

func invalid(err error) error { return fmt.Errorf("%w: %v", ErrInvalid, err) }

// NotFound tells whether err says the platform has no such document.
func NotFound(err error) bool {
	return errors.Is(err, adapters.ErrNoDocument) || adapters.KindOf(err) == adapters.KindNotFound
}

// Reader fetches documents. It remembers the Tweede Kamer's OData field
// names (from $metadata) for an hour, as the tk tools do.
type Reader struct {
	Get Getter
	// OBLinkBases are the base URLs Officiële Bekendmakingen's full-text
	// links may point into (app.LinkBaseURLs).
	OBLinkBases []string
	// TKRoot is the Tweede Kamer's OData root (default tk.DefaultRoot).
	TKRoot string
	// OpenTKText: a Tweede Kamer document's text comes from OpenTK (the
	// Gegevensmagazijn holds only the file); off when OpenTK is not on.
	OpenTKText bool
	// Now is the clock (default time.Now).
	Now func() time.Time

	memo adapters.Memo // the Tweede Kamer's schema, ORI's organisation names
}

// fetchers read one platform's documents each: id is the document's
// reference, kind the hit's type where a platform needs it (OpenTK's
// category).
var fetchers = map[string]func(rd *Reader, ctx context.Context, id, kind string) (adapters.Document, error){
	platforms.OBV: func(rd *Reader, ctx context.Context, id, _ string) (adapters.Document, error) {
		r, err := obv.EntityRequest(id)
		if err != nil {
			return adapters.Document{}, invalid(err)
		}
		body, err := rd.Get(ctx, platforms.OBV, r)
		if err != nil {
			return adapters.Document{}, err
		}
		return obv.ParseEntity(body)
	},
	platforms.TK:     func(rd *Reader, ctx context.Context, id, _ string) (adapters.Document, error) { return rd.tk(ctx, id) },
	platforms.OpenTK: (*Reader).opentk,
	platforms.OB:     func(rd *Reader, ctx context.Context, id, _ string) (adapters.Document, error) { return rd.ob(ctx, id) },
	platforms.Rechtspraak: func(rd *Reader, ctx context.Context, id, _ string) (adapters.Document, error) {
		r, err := rechtspraak.ContentRequest(id, false)
		if err != nil {
			return adapters.Document{}, invalid(err)
		}
		body, err := rd.Get(ctx, platforms.Rechtspraak, r)
		if err != nil {
			return adapters.Document{}, err
		}
		return rechtspraak.ParseContent(body)
	},
	platforms.ORI: func(rd *Reader, ctx context.Context, id, _ string) (adapters.Document, error) {
		d, err := ori.Fetch(&rd.memo, rd.now(), id, func(r adapters.Request) ([]byte, error) { return rd.Get(ctx, platforms.ORI, r) })
		var bad *adapters.InvalidError
		if errors.As(err, &bad) {
			return adapters.Document{}, invalid(bad.Err)
		}
		return d, err
	},
}

// Unreadable are the platforms whose documents the reader does not read,
// each with the reason: every other platform of the table has a fetcher
// (a test holds the two lists to the table).
var Unreadable = map[string]string{
	platforms.OA: "Open Archivaris publishes no API description, so its fetch rests on an operator's assumed endpoints (docs/emulators.md): its hits link to the source instead",
}

// Readable tells whether the reader can read the platform's documents.
func Readable(platform string) bool {
	_, ok := fetchers[platform]
	return ok
}

// Fetch returns the document id of platform with its full text. kind is
// the hit's type where a platform needs it (OpenTK's category).
func (rd *Reader) Fetch(ctx context.Context, platform, id, kind string) (adapters.Document, error) {
	if len(id) == 0 || len(id) > 500 {
		return adapters.Document{}, invalid(errors.New("the id must be 1 to 500 characters"))
	}
	fetch, ok := fetchers[platform]
	if !ok {
		return adapters.Document{}, invalid(fmt.Errorf("the reader cannot read documents of platform %q", platform))
	}
	return fetch(rd, ctx, id, kind)
}

func (rd *Reader) opentk(ctx context.Context, id, kind string) (adapters.Document, error) {
	if kind != "" && !opentk.Fetchable(kind) {
		item, err := opentk.ValidItem(id)
		if err != nil {
			return adapters.Document{}, invalid(err)
		}
		// OpenTK has no text of such an item: what it is and where to
		// open it.
		return adapters.Document{ID: item, Type: kind, URL: opentk.ItemURL(kind, item)}, nil
	}
	n, err := opentk.ValidNumber(id)
	if err != nil {
		return adapters.Document{}, invalid(err)
	}
	if kind == opentk.Verslag {
		return rd.minutes(ctx, n)
	}
	r, err := opentk.DocumentRequest(n)
	if err != nil {
		return adapters.Document{}, invalid(err)
	}
	body, err := rd.Get(ctx, platforms.OpenTK, r)
	if err != nil {
		// A GUID without category may be a meeting's id: its minutes.
		if kind == "" && opentk.IsGUID(n) && NotFound(err) {
			return rd.minutes(ctx, n)
		}
		return adapters.Document{}, err
	}
	return opentk.ParseDocument(n, opentk.Document, body)
}

func (rd *Reader) minutes(ctx context.Context, id string) (adapters.Document, error) {
	r, err := opentk.MinutesRequest(id)
	if err != nil {
		return adapters.Document{}, invalid(err)
	}
	body, err := rd.Get(ctx, platforms.OpenTK, r)
	if err != nil {
		return adapters.Document{}, err
	}
	return opentk.ParseDocument(id, opentk.Verslag, body)
}

func (rd *Reader) ob(ctx context.Context, id string) (adapters.Document, error) {
	look, err := ob.LookupRequest(id)
	if err != nil {
		return adapters.Document{}, invalid(err)
	}
	body, err := rd.Get(ctx, platforms.OB, look)
	if err != nil {
		return adapters.Document{}, err
	}
	rec, err := ob.ParseLookup(body, id)
	if errors.Is(err, ob.ErrNoPublication) {
		return adapters.Document{}, adapters.ErrNoDocument
	}
	if err != nil {
		return adapters.Document{}, err
	}
	d := adapters.Document{ID: rec.Hit.ID, Type: rec.Hit.Type, Title: rec.Hit.Title, Date: rec.Hit.Date,
		Source: rec.Hit.Source, URL: rec.Hit.URL, Meta: map[string]string{}}
	for k, v := range rec.Items {
		if k == "pdf" || k == "html" {
			d.Meta[k] = v
		}
	}
	xmlURL := rec.Items["xml"]
	if xmlURL == "" {
		return d, nil // scanned PDF only: no text
	}
	fr, err := ob.FileRequest(rd.OBLinkBases, xmlURL)
	if err != nil {
		return adapters.Document{}, err
	}
	file, err := rd.Get(ctx, platforms.OB, fr)
	if err != nil {
		return adapters.Document{}, err
	}
	if d.Text, err = ob.ParseXML(file); err != nil {
		return adapters.Document{}, err
	}
	return d, nil
}

func (rd *Reader) tk(ctx context.Context, raw string) (adapters.Document, error) {
	id, err := tk.ParseDocumentID(raw)
	if err != nil {
		return adapters.Document{}, invalid(err)
	}
	get := func(r adapters.Request) ([]byte, error) { return rd.Get(ctx, platforms.TK, r) }
	d, err := tk.Fetch(id, func() (*tk.Schema, error) { return rd.tkSchema(ctx) }, get)
	if err != nil || !rd.OpenTKText {
		return d, err
	}
	// The Gegevensmagazijn holds the text only as a file; OpenTK serves
	// the same document, by the same number, as text. Without it the
	// reader still shows the metadata and the link.
	if n, err := opentk.ValidNumber(d.ID); err == nil {
		if r, err := opentk.DocumentRequest(n); err == nil {
			if body, err := rd.Get(ctx, platforms.OpenTK, r); err == nil {
				if od, err := opentk.ParseDocument(n, opentk.Document, body); err == nil {
					d.Text = od.Text
				}
			}
		}
	}
	return d, nil
}

func (rd *Reader) tkSchema(ctx context.Context) (*tk.Schema, error) {
	root := rd.TKRoot
	if root == "" {
		root = tk.DefaultRoot
	}
	return tk.SchemaOf(&rd.memo, root, rd.now(), func(r adapters.Request) ([]byte, error) { return rd.Get(ctx, platforms.TK, r) })
}

func (rd *Reader) now() time.Time {
	if rd.Now != nil {
		return rd.Now()
	}
	return time.Now()
}

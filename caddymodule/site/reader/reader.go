// Package reader fetches one document's full text for the site's reader
// view, per platform, through the platforms' surfaces (adapters/registry),
// which read documents as the MCP fetch tools do. It knows nothing of Caddy: every
// platform request goes through a Getter, which the site module points at
// the platform's route (cache, budget and proxy), as the shared session.
package reader

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/clock"
)

// Getter runs one request against a platform's route and returns the body
// of a 2xx answer; any other outcome is an error, an
// *adapters.RouteError when the route answered.
type Getter = adapters.Getter

// ErrInvalid marks an id or platform the reader refuses before asking
// anything (the caller answers 400).
var ErrInvalid = errors.New("invalid document reference")

func invalid(err error) error { return fmt.Errorf("%w: %v", ErrInvalid, err) }

// NotFound tells whether err says the platform has no such document.
func NotFound(err error) bool { return adapters.NotFound(err) }

// Reader fetches documents through the platforms' surfaces
// (adapters/registry): each reads its documents as its MCP fetch tool
// does. The memo keeps reference data (the Tweede Kamer's OData field
// names, ORI's organisation names) for adapters.MemoTTL.
type Reader struct {
	Get Getter
	// Surfaces are the platforms' surfaces (registry.Surfaces of the
	// operator's settings).
	Surfaces map[string]adapters.Surface
	// Clock is the time the platforms' calls are made at (default
	// clock.Wall).
	Clock clock.Clock

	memo adapters.Memo
}

// Unreadable says why the reader does not read platform's documents; ""
// when it does.
func (rd *Reader) Unreadable(platform string) string {
	s, ok := rd.Surfaces[platform]
	switch {
	case !ok:
		return "the reader does not know platform " + platform
	case s.Fetch == nil:
		return s.Unreadable
	}
	return ""
}

// Readable tells whether the reader can read the platform's documents.
func (rd *Reader) Readable(platform string) bool { return rd.Unreadable(platform) == "" }

// Fetch returns the document id of platform with its full text and its
// resource URI (besluitbron://..., from the platform's surface when the
// fetch did not set it). kind is the hit's type where a platform needs it
// (OpenTK's category).
func (rd *Reader) Fetch(ctx context.Context, platform, id, kind string) (adapters.Document, error) {
	if len(id) == 0 || len(id) > 500 {
		return adapters.Document{}, invalid(errors.New("the id must be 1 to 500 characters"))
	}
	if why := rd.Unreadable(platform); why != "" {
		return adapters.Document{}, invalid(fmt.Errorf("the reader cannot read documents of platform %q: %s", platform, why))
	}
	s := rd.Surfaces[platform]
	d, err := s.Fetch(ctx, adapters.Env{Get: rd.Get, Memo: &rd.memo, Now: rd.now()}, id, kind)
	var bad *adapters.InvalidError
	if errors.As(err, &bad) {
		return adapters.Document{}, invalid(bad.Err)
	}
	if err == nil && d.URI == "" && s.URI != nil {
		if d.ID != "" {
			id = d.ID
		}
		if d.Type != "" && kind == "" {
			kind = d.Type
		}
		d.URI = s.URI(id, kind)
	}
	return d, err
}

func (rd *Reader) now() time.Time { return clock.Or(rd.Clock).Now() }

// Votes returns how document id of platform (of type kind, as the fetch
// gave them) was voted on, as charts: none when the platform publishes
// no votes or the document is no kind that is voted on.
func (rd *Reader) Votes(ctx context.Context, platform, id, kind string) ([]adapters.VoteChart, error) {
	s, ok := rd.Surfaces[platform]
	if !ok || s.Votes == nil || id == "" || len(id) > 500 {
		return nil, nil
	}
	charts, err := s.Votes(ctx, adapters.Env{Get: rd.Get, Memo: &rd.memo, Now: rd.now()}, id, kind)
	var bad *adapters.InvalidError
	if errors.As(err, &bad) {
		return nil, invalid(bad.Err)
	}
	return charts, err
}

// Timeline is the way of q's dossier from the platforms offered
// (adapters.BuildTimeline over the surfaces' timeline sources, in order:
// the platforms table's keys), as dossier_timeline gives it; explain says
// a failed request in the page's words.
func (rd *Reader) Timeline(ctx context.Context, order, offered []string, q adapters.TimelineQuery) (*adapters.Timeline, error) {
	sources := adapters.TimelineSources(rd.Surfaces, order)
	t, err := adapters.BuildTimeline(ctx, adapters.Env{Get: rd.Get, Memo: &rd.memo, Now: rd.now()}, sources, offered, q)
	var bad *adapters.InvalidError
	if errors.As(err, &bad) {
		return nil, invalid(bad.Err)
	}
	return t, err
}

// OffersTimeline tells whether a dossier's way can be read from the
// platforms offered: one of them holds the dossier itself.
func (rd *Reader) OffersTimeline(order, offered []string) bool {
	return adapters.OffersTimeline(adapters.TimelineSources(rd.Surfaces, order), offered)
}

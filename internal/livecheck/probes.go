package livecheck

import (
	"fmt"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/adapters/registry"
	"github.com/besluitbron/besluitbron/internal/shape"
	"github.com/besluitbron/besluitbron/platforms"
)

// Platforms are the platform keys the check knows, in report order: the
// table's (Probes has one probe for each, a test holds it to that). A
// function, not a variable set at init: the platforms register in their
// own inits, which may run after this package's.
func Platforms() []string { return platforms.Keys() }

// Sample is a real payload file an answer is held against, with the
// options its emulator's test uses for the same file.
type Sample struct {
	File string // name under the fixtures directory's <platform>/ folder
	Opts []shape.Option
}

// Probe is the one tiny request the check sends to a platform.
type Probe struct {
	Platform string
	Name     string // short name of what is asked, used for saved files
	Request  adapters.Request
	// Samples are real payloads the answer must match (one way: every
	// path a sample has). Empty when no real sample exists.
	Samples []Sample
	// Documented is the shape the platform's documentation or code gives,
	// used when there is no sample; DocSource names it.
	Documented []byte
	DocSource  string
	// Ext is the file extension a saved answer gets.
	Ext string
	// Absent and AbsentHint as adapters.Probe's: an answer without the
	// record asked is "not found", not a shape failure.
	Absent     func(body []byte) bool
	AbsentHint string
}

// Basis says what the answer's shape is checked against.
func (p Probe) Basis() string {
	switch {
	case len(p.Samples) > 0:
		return "real sample"
	case p.Documented != nil:
		return "documentation (" + p.DocSource + ")"
	}
	return "nothing (" + p.DocSource + ")"
}

// Config chooses the probes' parameters.
type Config struct {
	// Options are platform options by key, as the besluitbron app's
	// platform blocks take them (the Tweede Kamer's odata_root, default
	// /OData/v5): each platform reads its own (platforms.Configurable).
	Options map[string]platforms.Options
	// IDs are the records the probes that look one up ask for, by
	// platform key (an Officiële Bekendmakingen publication); a platform
	// absent here asks its default.
	IDs map[string]string
}

// Probes returns one probe per platform, in Platforms order: each
// platform's own (its surface's Probe, adapters/registry).
func Probes(cfg Config) ([]Probe, error) {
	values, err := platforms.AllSettings(cfg.Options)
	if err != nil {
		return nil, err
	}
	surfaces := registry.Surfaces(registry.Settings{Values: values})
	ps := make([]Probe, 0, len(Platforms()))
	for _, k := range Platforms() {
		s, ok := surfaces[k]
		if !ok || s.Probe == nil {
			return nil, fmt.Errorf("platform %s has no probe", k)
		}
		p, err := s.Probe(adapters.ProbeConfig{ID: cfg.IDs[k]})
		if err != nil {
			return nil, fmt.Errorf("platform %s: %v", k, err)
		}
		ps = append(ps, Probe{Platform: k, Name: p.Name, Request: p.Request, Samples: samples(p.Samples),
			Documented: p.Documented, DocSource: p.DocSource, Ext: p.Ext, Absent: p.Absent, AbsentHint: p.AbsentHint})
	}
	return ps, nil
}

// samples turns a probe's samples' leniencies into shape options.
func samples(in []adapters.Sample) []Sample {
	var out []Sample
	for _, s := range in {
		var opts []shape.Option
		if s.NullOK {
			opts = append(opts, shape.NullOK())
		}
		if s.IgnoreNamespaces {
			opts = append(opts, shape.IgnoreNamespaces())
		}
		if s.Anywhere {
			opts = append(opts, shape.Anywhere())
		}
		out = append(out, Sample{File: s.File, Opts: opts})
	}
	return out
}

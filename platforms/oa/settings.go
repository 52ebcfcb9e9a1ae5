package oa

import (
	"fmt"
	"strings"

	"github.com/besluitbron/besluitbron/platforms"
)

// Open Archivaris publishes no API: its endpoints are the assumption
// docs/emulators.md writes down (Defaults), and the operator may name
// others, option by option (platform oa { search_path /zoek }, or a
// connector's oa_search_path), as platforms.Configurable.

// endpointOptions are the options, each naming one Endpoints field.
var endpointOptions = []struct {
	name  string
	field func(*Endpoints) *string
}{
	{"search_path", func(e *Endpoints) *string { return &e.SearchPath }},
	{"document_path", func(e *Endpoints) *string { return &e.DocumentPath }},
	{"text_path", func(e *Endpoints) *string { return &e.TextPath }},
	{"query_param", func(e *Endpoints) *string { return &e.QueryParam }},
	{"limit_param", func(e *Endpoints) *string { return &e.LimitParam }},
	{"page_param", func(e *Endpoints) *string { return &e.PageParam }},
	{"offset_param", func(e *Endpoints) *string { return &e.OffsetParam }},
	{"organisation_param", func(e *Endpoints) *string { return &e.OrgParam }},
}

// Options names the endpoint options.
func (provider) Options() []string {
	names := make([]string, len(endpointOptions))
	for i, o := range endpointOptions {
		names[i] = o.name
	}
	return names
}

// Settings reads the endpoint options over Defaults: an Endpoints.
func (provider) Settings(o platforms.Options) (any, error) {
	var e Endpoints
	known := 0
	for _, opt := range endpointOptions {
		args, ok := o[opt.name]
		if !ok {
			continue
		}
		known++
		if len(args) != 1 || args[0] == "" {
			return nil, fmt.Errorf("%s takes one value, got %d", opt.name, len(args))
		}
		if strings.HasSuffix(opt.name, "_path") && !strings.HasPrefix(args[0], "/") {
			return nil, fmt.Errorf("%s %q must start with /", opt.name, args[0])
		}
		*opt.field(&e) = args[0]
	}
	if known != len(o) {
		return nil, unknownOption(o)
	}
	return e.WithDefaults(), nil
}

// unknownOption names the first option of o that is none of the
// endpoint options.
func unknownOption(o platforms.Options) error {
	for name := range o {
		if !platforms.HasOption(platforms.OA, name) {
			return fmt.Errorf("unknown option %q (known: %v)", name, provider{}.Options())
		}
	}
	return nil
}

var _ platforms.Configurable = provider{}

package tk

import (
	"fmt"

	"github.com/besluitbron/besluitbron/platforms"
)

// The Tweede Kamer's OData root is the one setting of the platform
// (platforms.Configurable): /OData/v5 by default (DefaultRoot), the old
// version's /OData/v4/2.0 where it must be asked. Its $metadata gives the
// field names to the tools, the fan-out and the reader.

// Options names the OData root option.
func (provider) Options() []string { return []string{"odata_root"} }

// Settings reads odata_root (default DefaultRoot): the root, a string.
func (provider) Settings(o platforms.Options) (any, error) {
	root := DefaultRoot
	for name, args := range o {
		if name != "odata_root" {
			return nil, fmt.Errorf("unknown option %q (known: odata_root)", name)
		}
		if len(args) != 1 {
			return nil, fmt.Errorf("odata_root takes one path, got %d values", len(args))
		}
		if err := CheckRoot(args[0]); err != nil {
			return nil, fmt.Errorf("odata_root: %v", err)
		}
		root = args[0]
	}
	return root, nil
}

var _ platforms.Configurable = provider{}

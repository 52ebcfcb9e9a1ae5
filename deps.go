//go:build tools

package besluitbron

import (
	_ "github.com/allegro/bigcache/v3"
	_ "github.com/mark3labs/mcp-go/server"
	_ "go.etcd.io/bbolt"
	_ "golang.org/x/time/rate"
)

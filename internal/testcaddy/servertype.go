package testcaddy

import (
	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
	"github.com/caddyserver/caddy/v2/caddyconfig/httpcaddyfile"
)

func httpServerType() caddyfile.ServerType { return httpcaddyfile.ServerType{} }

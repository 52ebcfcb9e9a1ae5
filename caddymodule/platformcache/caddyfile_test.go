package platformcache

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestCaddyfileParse(t *testing.T) {
	cases := []struct {
		name, in string
		want     string // JSON of the handler
		err      string
	}{
		{name: "bare", in: `platform_cache obv`, want: `{"platform":"obv"}`},
		{name: "empty block", in: `platform_cache tk {
		}`, want: `{"platform":"tk"}`},
		{name: "everything", in: `platform_cache opentk {
			version 1.4.6
			memory 64MiB
			disk 1GiB
			max_body 16MiB
			max_request_body 64KiB
			dir /var/cache/bb
			list {
				path /commissie/* /recent-kamerstukdossiers
				ttl 14d
				stale_while_revalidate 2d
				stale_if_error 60d
			}
			search {
				method POST
				path /search
				ttl 15m
				post on
				negative_ttl 30s
			}
			document {
				path /getraw/* /getdoc/*
				ttl 30d
			}
			other 2h
		}`, want: `{"platform":"opentk","version":"1.4.6","memory_bytes":67108864,"disk_bytes":1073741824,"max_body":16777216,"max_request_body":65536,"dir":"/var/cache/bb","kinds":{"document":{"match":[{"path":["/getraw/*","/getdoc/*"]}],"ttl":2592000000000000},"list":{"match":[{"path":["/commissie/*","/recent-kamerstukdossiers"]}],"ttl":1209600000000000,"stale_while_revalidate":172800000000000,"stale_if_error":5184000000000000},"other":{"ttl":7200000000000},"search":{"match":[{"method":["POST"],"path":["/search"]}],"ttl":900000000000,"negative_ttl":30000000000,"post":true}}}`},
		{name: "kind off", in: `platform_cache oa {
			other off
			search {
				ttl off
			}
		}`, want: `{"platform":"oa","kinds":{"other":{"ttl":-1},"search":{"ttl":-1}}}`},
		{name: "matcher with block and expression", in: "platform_cache ob {\n list {\n query operation=explain\n header Accept *xml*\n }\n search {\n `{query.operation} == 'searchRetrieve'`\n }\n}",
			want: `{"platform":"ob","kinds":{"list":{"match":[{"header":{"Accept":["*xml*"]},"query":{"operation":["explain"]}}]},"search":{"match":[{"expression":"{query.operation} == 'searchRetrieve'"}]}}}`},
		{name: "byte count", in: `platform_cache ori {
			memory 2097152
		}`, want: `{"platform":"ori","memory_bytes":2097152}`},

		{name: "no platform", in: `platform_cache`, err: "wrong argument count"},
		{name: "two platforms", in: `platform_cache obv tk`, err: "wrong argument count"},
		{name: "unknown option", in: `platform_cache obv {
			colour blue
		}`, err: `unknown platform_cache option "colour"`},
		{name: "bad size", in: `platform_cache obv {
			memory lots
		}`, err: `memory: bad size "lots"`},
		{name: "size missing", in: `platform_cache obv {
			disk
		}`, err: "wrong argument count"},
		{name: "bad ttl", in: `platform_cache obv {
			list {
				ttl forever
			}
		}`, err: `ttl: bad duration "forever"`},
		{name: "zero ttl", in: `platform_cache obv {
			search 0s
		}`, err: `ttl: bad duration "0s"`},
		{name: "negative stale", in: `platform_cache obv {
			list {
				stale_if_error -1h
			}
		}`, err: `stale_if_error: bad duration "-1h"`},
		{name: "unknown matcher", in: `platform_cache obv {
			list {
				pathh /api/sources
			}
		}`, err: `unknown option or request matcher "pathh"`},
		{name: "bad matcher args", in: `platform_cache obv {
			list {
				path_regexp
			}
		}`, err: "wrong argument count"},
		{name: "matcher on other", in: `platform_cache obv {
			other {
				path /x
			}
		}`, err: "kind other takes what no other kind matched"},
		{name: "kind twice", in: `platform_cache obv {
			list 1d
			list 2d
		}`, err: "kind list configured twice"},
		{name: "bad post", in: `platform_cache obv {
			search {
				post maybe
			}
		}`, err: `post: want on or off, got "maybe"`},
		{name: "extra version arg", in: `platform_cache obv {
			version 1 2
		}`, err: "wrong argument count"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tc.in))
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got, _ := json.Marshal(&h)
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}
}

func TestValidateConfig(t *testing.T) {
	for _, tc := range []struct {
		h   Handler
		err string
	}{
		{Handler{Platform: "nope"}, `unknown platform "nope"`},
		{Handler{Platform: "obv", Kinds: map[string]*KindConfig{"lists": {}}}, `unknown kind "lists"`},
		{Handler{Platform: "obv", MemoryBytes: 1000}, "at least 1MiB"},
		{Handler{Platform: "obv", DiskBytes: -1}, "disk must not be negative"},
	} {
		if err := tc.h.validateConfig(); err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("%+v: %v, want %q", tc.h, err, tc.err)
		}
	}
	if err := (&Handler{Platform: "rechtspraak"}).validateConfig(); err != nil {
		t.Fatal(err)
	}
}

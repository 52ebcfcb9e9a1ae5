package clientlimit

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/caddyserver/caddy/v2/caddyconfig/caddyfile"
)

func TestUnmarshalCaddyfile(t *testing.T) {
	good := []struct {
		name, in, want string
	}{
		{"bare", `client_limit`, `{}`},
		{"zone only", `client_limit raad`, `{"zone":"raad"}`},
		{"empty block", "client_limit rijk {\n}", `{"zone":"rijk"}`},
		{"every layer", `client_limit raad {
			process 1000/s 2000
			connector 300/s 600
			session 20/s 60
			address 50/s 150
			max_keys 500000
			ipv6_prefix 56
			trusted_sources 192.0.2.0/24 2001:db8::/32
			trusted_sources 198.51.100.7
		}`, `{"zone":"raad","process":{"rate":"1000/s","burst":2000},"connector":{"rate":"300/s","burst":600},` +
			`"session":{"rate":"20/s","burst":60},"address":{"rate":"50/s","burst":150},"max_keys":500000,"ipv6_prefix":56,` +
			`"trusted_sources":["192.0.2.0/24","2001:db8::/32","198.51.100.7"]}`},
		{"units and off", `client_limit {
			session 600/m 10
			address 3/10s 3
			connector off
			process 2.5 5
		}`, `{"process":{"rate":"2.5","burst":5},"connector":{"rate":"off"},"session":{"rate":"600/m","burst":10},"address":{"rate":"3/10s","burst":3}}`},
	}
	for _, tc := range good {
		t.Run(tc.name, func(t *testing.T) {
			var h Handler
			if err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tc.in)); err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			got, _ := json.Marshal(h)
			if string(got) != tc.want {
				t.Fatalf("got  %s\nwant %s", got, tc.want)
			}
		})
	}

	bad := []struct {
		name, in, wantErr string
	}{
		{"two zones", `client_limit a b`, "wrong argument count"},
		{"bad zone", `client_limit "a b"`, "zone"},
		{"unknown sub", "client_limit {\n rate 1/s 2\n}", "unrecognized subdirective 'rate'"},
		{"no burst", "client_limit {\n session 20/s\n}", "session: want <rate> <burst>"},
		{"zero burst", "client_limit {\n session 20/s 0\n}", "burst"},
		{"bad unit", "client_limit {\n address 20/d 5\n}", "unit must be"},
		{"zero rate", "client_limit {\n process 0/s 5\n}", "positive number"},
		{"too fast", "client_limit {\n process 5000000/s 5\n}", "too high"},
		{"off with burst", "client_limit {\n connector off 5\n}", "off takes no burst"},
		{"extra arg", "client_limit {\n session 1/s 2 3\n}", "want <rate> <burst>"},
		{"twice", "client_limit {\n session 1/s 2\n session 2/s 2\n}", "given twice"},
		{"max_keys missing", "client_limit {\n max_keys\n}", "wrong argument count"},
		{"max_keys zero", "client_limit {\n max_keys 0\n}", "max_keys"},
		{"max_keys word", "client_limit {\n max_keys many\n}", "max_keys"},
		{"max_keys extra", "client_limit {\n max_keys 5 6\n}", "wrong argument count"},
		{"ipv6_prefix 0", "client_limit {\n ipv6_prefix 0\n}", "ipv6_prefix"},
		{"ipv6_prefix 129", "client_limit {\n ipv6_prefix 129\n}", "ipv6_prefix"},
		{"ipv6_prefix missing", "client_limit {\n ipv6_prefix\n}", "wrong argument count"},
		{"trusted no arg", "client_limit {\n trusted_sources\n}", "wrong argument count"},
		{"trusted bad cidr", "client_limit {\n trusted_sources 10.0.0.0/33\n}", "bad trusted_sources"},
		{"trusted hostname", "client_limit {\n trusted_sources proxy.example\n}", "bad trusted_sources"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			var h Handler
			err := h.UnmarshalCaddyfile(caddyfile.NewTestDispenser(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

package clientlimit

import (
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/inbound"
	"github.com/besluitbron/besluitbron/internal/redistest"
	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/sharedstore"
)

// Through Caddy with the besluitbron app's store set: the address bucket
// lives in Redis, so another instance on the same store (here a zone at
// the Go level with the same name) counts against the same bucket: the
// client's requests through Caddy and through the other instance together
// pass the address's burst once. The 429's Retry-After comes from the
// global bucket, and the tier metric counts the decisions.
func TestSharedAddressThroughCaddy(t *testing.T) {
	prefix := redistest.Prefix(t)
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	auto_https off
	persist_config off
	besluitbron {
		store %s
		store_prefix %s
		instances 2
		store_timeout 5s
	}
}
http://127.0.0.1:%d {
	client_limit it-shared {
		process off
		connector off
		session 1/m 4
		address 10/m 10
	}
	respond "ok"
}
`, redistest.URL(), prefix, port))
	shared0 := counterValue(tierTotal.WithLabelValues("it-shared", "shared"))

	// Instance 2: a zone of the same name on another store, same prefix.
	other := inbound.NewZone(inbound.Config{Session: inbound.Limit{Every: 6 * time.Second, Burst: 4}, Address: inbound.Limit{Every: 6 * time.Second, Burst: 10}, MaxKeys: 100})
	// Both stores wait for Redis far longer than the 150 ms default: a
	// busy machine (CI runs this beside other jobs) must not send either
	// side to its local fallback, which passes its own burst.
	other.SetGlobal(inbound.NewGlobal(redistest.Open(t, sharedstore.Options{Prefix: prefix, Instances: 2, Timeout: 5 * time.Second}), "it-shared", 100, false))

	url := fmt.Sprintf("http://127.0.0.1:%d/", port)
	passed := 0
	var refusal *http.Response
	for i := range 30 {
		if i%2 == 1 {
			if d := other.Allow(time.Now(), nil, inbound.Client{Address: "addr:127.0.0.1"}); d.Allowed {
				passed++
			} else if d.Tier != inbound.TierShared {
				t.Fatalf("instance 2 judged in tier %s", d.Tier)
			}
			continue
		}
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode == 200 {
			passed++
		} else if refusal == nil {
			refusal = resp
		}
	}
	if passed != 10 {
		t.Fatalf("%d passed over Caddy and instance 2 together, want the address burst 10 once", passed)
	}
	if refusal == nil || refusal.StatusCode != 429 || refusal.Header.Get("Retry-After") == "" {
		t.Fatalf("refusal %+v, want 429 with Retry-After", refusal)
	}
	if ra := refusal.Header.Get("Retry-After"); ra != "6" && ra != "5" {
		t.Fatalf("Retry-After %s, want the global bucket's wait of about 6 s (10/m)", ra)
	}
	if got := counterValue(tierTotal.WithLabelValues("it-shared", "shared")) - shared0; got != 15 {
		t.Fatalf("tier shared counted %v decisions, want 15", got)
	}
	for k, ttl := range redistest.Keys(t, prefix) {
		if ttl <= 0 {
			t.Fatalf("%s: no TTL", k)
		}
	}
}

package platformproxy

import (
	"fmt"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
	"github.com/besluitbron/besluitbron/platforms"
	up "github.com/besluitbron/besluitbron/upstream"
)

// liveHandler is the provisioned platform_proxy of platform key.
func liveHandler(t *testing.T, key string) *Handler {
	t.Helper()
	var found *Handler
	live.Range(func(k, _ any) bool {
		if h := k.(*Handler); h.Platform == key {
			found = h
		}
		return found == nil
	})
	if found == nil {
		t.Fatalf("no platform_proxy %s provisioned", key)
	}
	return found
}

func dialsOf(px *up.Proxy, h *Handler) []string {
	var out []string
	for _, u := range h.upstreams {
		if h.proxyOfDial(u.dial) == px {
			out = append(out, u.dial)
		}
	}
	return out
}

// A platform on two hosts (the laws: KOOP's SRU search and its
// repository) sends each path to its host through the one route; a base
// URL the operator sets serves every path.
func TestMountsSendPathsToTheirHost(t *testing.T) {
	p, _ := platforms.Get(platforms.BWB)
	if len(p.Mounts) != 1 || p.Mounts[0].Prefix != "/sru/" {
		t.Fatalf("bwb mounts: %+v", p.Mounts)
	}
	port := testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
}
:%d {
	handle_path /platforms/bwb/* {
		platform_proxy bwb
	}
}`, port))
	h := liveHandler(t, platforms.BWB)
	search, texts := h.proxyFor("/sru/Search"), h.proxyFor("/bwb/BWBR0008326/manifest.xml")
	if search == texts {
		t.Fatal("the SRU search and the repository share one proxy")
	}
	if d := dialsOf(search, h); len(d) != 1 || d[0] != "zoekservice.overheid.nl:443" {
		t.Errorf("search goes to %v", d)
	}
	if d := dialsOf(texts, h); len(d) != 1 || d[0] != "repository.officiele-overheidspublicaties.nl:443" {
		t.Errorf("texts go to %v", d)
	}

	port = testproc.FreePort(t)
	testcaddy.Load(t, fmt.Sprintf(`{
	admin off
	besluitbron {
		platform bwb {
			base_url http://127.0.0.1:9
		}
	}
}
:%d {
	handle_path /platforms/bwb/* {
		platform_proxy bwb
	}
}`, port))
	h = liveHandler(t, platforms.BWB)
	if len(h.mounts) != 0 || h.proxyFor("/sru/Search") != h.up {
		t.Fatalf("a configured base URL left mounts: %+v", h.mounts)
	}
}

package besluitbron

import (
	"bytes"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"testing"

	"github.com/besluitbron/besluitbron/internal/testcaddy"
	"github.com/besluitbron/besluitbron/internal/testproc"
)

// offlineHouse runs the default Caddyfile as ./xcaddy.sh offline does
// (Caddyfile.offline: every platform pointed at its emulator, each emulator
// on its own loopback port), but on free ports, in this process. It returns
// the proxy's base URL and each emulator's base URLs by platform key.
//
// The variables named in unset are left empty, as an operator who does not
// set them would.
func offlineHouse(t *testing.T, unset ...string) (string, map[string][]string) {
	t.Helper()
	return offlineHouseEdited(t, nil, unset...)
}

// offlineHouseEdited is offlineHouse with the Caddyfile first changed by
// edit (nil: as it is), for a test whose subject is not a setting the
// default config holds (its inbound limits, its connectors).
func offlineHouseEdited(t *testing.T, edit func(caddyfile string) string, unset ...string) (string, map[string][]string) {
	t.Helper()
	return testcaddy.OfflineHouse(t, ".", edit, unset...)
}

func opentkSearch(t *testing.T, query string) (io.Reader, string) {
	t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	_ = mw.WriteField("q", query)
	_ = mw.WriteField("twomonths", "false")
	_ = mw.WriteField("soorten", "alles")
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	return &body, mw.FormDataContentType()
}

// Each platform route of the default Caddyfile reaches its emulator over
// real TCP and answers with the platform's format.
func TestEveryPlatformRouteAnswers(t *testing.T) {
	proxy, emulators := offlineHouse(t)
	for _, tc := range []struct {
		platform, method, path string
		wantType, wantBody     string
	}{
		{"ori", "GET", "/ori_*/_search?q=woningbouw&size=2", "application/json", `"hits"`},
		{"obv", "GET", "/api/search?query=woningbouw&limit=3", "application/json", `"results"`},
		{"obv", "GET", "/api/sources", "application/json", `"sources"`},
		{"tk", "GET", "/OData/v4/2.0/Fractie?$top=3", "application/json", `"value"`},
		{"opentk", "POST", "/search", "application/json", `"milliseconds"`},
		{"ob", "GET", "/sru?operation=searchRetrieve&version=2.0&query=dt.type%3DStaatsblad&maximumRecords=2", "xml", "searchRetrieveResponse"},
		{"rechtspraak", "GET", "/uitspraken/zoeken?max=5", "xml", "<feed"},
		{"rechtspraak", "GET", "/Waardelijst/Instanties", "xml", "Instantie"},
		{"oa", "GET", "/api/v1/bodies", "application/json", `"bodies"`},
	} {
		t.Run(tc.platform+tc.path, func(t *testing.T) {
			before := testproc.EmulatorRequests(t, emulators[tc.platform][0])
			var body io.Reader
			var contentType string
			if tc.method == "POST" {
				body, contentType = opentkSearch(t, "stikstof")
			}
			req, err := http.NewRequest(tc.method, proxy+"/platforms/"+tc.platform+tc.path, body)
			if err != nil {
				t.Fatal(err)
			}
			if contentType != "" {
				req.Header.Set("Content-Type", contentType)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, got)
			}
			if ct := resp.Header.Get("Content-Type"); !strings.Contains(ct, tc.wantType) {
				t.Errorf("Content-Type %q, want %q", ct, tc.wantType)
			}
			if !strings.Contains(string(got), tc.wantBody) {
				t.Errorf("body lacks %s: %.300s", tc.wantBody, got)
			}
			// Served by the emulator behind the route (the cache may answer
			// a repeat, never a first request).
			if after := testproc.EmulatorRequests(t, emulators[tc.platform][0]); after <= before {
				t.Errorf("the %s emulator counted no request (%d before, %d after)", tc.platform, before, after)
			}
		})
	}
}

func TestUnknownPlatformIs404(t *testing.T) {
	proxy, _ := offlineHouse(t)
	resp, err := http.Get(proxy + "/platforms/nope/anything")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Fatalf("status %d, want 404", resp.StatusCode)
	}
	var msg struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || !strings.Contains(msg.Error, "unknown platform") || !strings.Contains(msg.Error, "rechtspraak") {
		t.Errorf("body %s: want a JSON error naming the known platforms", body)
	}
}

// The default Caddyfile caches: a repeated request is answered without
// asking the platform again, and says so in Cache-Status.
func TestRepeatedRequestComesFromTheCache(t *testing.T) {
	proxy, emulators := offlineHouse(t)
	get := func() (*http.Response, string) {
		resp, err := http.Get(proxy + "/platforms/rechtspraak/Waardelijst/Instanties")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, string(body)
	}
	first, firstBody := get()
	count := testproc.EmulatorRequests(t, emulators["rechtspraak"][0])
	second, secondBody := get()
	if first.StatusCode != 200 || second.StatusCode != 200 {
		t.Fatalf("statuses %d, %d", first.StatusCode, second.StatusCode)
	}
	if after := testproc.EmulatorRequests(t, emulators["rechtspraak"][0]); after != count {
		t.Errorf("the repeat reached the platform (%d requests, then %d)", count, after)
	}
	if cs := second.Header.Get("Cache-Status"); !strings.Contains(cs, "hit") {
		t.Errorf("Cache-Status of the repeat = %q, want a hit", cs)
	}
	if firstBody != secondBody {
		t.Error("the cached answer differs from the first")
	}
}

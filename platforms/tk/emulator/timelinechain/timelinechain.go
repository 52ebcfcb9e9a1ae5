// Package timelinechain holds the emulators of a dossier's whole way for
// the timeline's tests (the MCP tool's, the site's page): the Tweede
// Kamer's dossiers with votes, and for some of them a Staatsblad
// publication (Officiële Bekendmakingen) and a law version (BWB) that name
// the dossier in their own metadata. The Kamer holds the dossier, so the
// chain is its emulator's; only tests import it.
package timelinechain

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/besluitbron/besluitbron/internal/fakeclock"
	"github.com/besluitbron/besluitbron/platforms"
	bwbemu "github.com/besluitbron/besluitbron/platforms/bwb/emulator"
	obemu "github.com/besluitbron/besluitbron/platforms/ob/emulator"
	tkemu "github.com/besluitbron/besluitbron/platforms/tk/emulator"
)

// Now is the emulators' day, as tk_votes' end-to-end test has it.
var Now = time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)

// VotedDossiers asks the TK emulator for the dossiers of zaken that were
// voted on, as 36428 or 36200-VII, in the order it gives them.
func VotedDossiers(t *testing.T, h http.Handler) []string {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/OData/v4/2.0/Besluit?$filter=startswith(BesluitSoort,'Stemmen')&$expand=Zaak($expand=Kamerstukdossier)&$top=200&$orderby=Id", nil))
	var env struct {
		Value []struct {
			Zaak []struct {
				Kamerstukdossier []struct {
					Nummer     int
					Toevoeging *string
				}
			}
		}
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
		t.Fatalf("%v: %.300s", err, rec.Body.String())
	}
	var out []string
	for _, b := range env.Value {
		for _, z := range b.Zaak {
			if len(z.Kamerstukdossier) != 1 {
				continue
			}
			d := fmt.Sprint(z.Kamerstukdossier[0].Nummer)
			if tv := z.Kamerstukdossier[0].Toevoeging; tv != nil && *tv != "" {
				d += "-" + *tv
			}
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	if len(out) < 3 {
		t.Fatalf("the emulator has %d dossiers with votes", len(out))
	}
	return out
}

// plainDossiers are the dossiers of ds without an addition (a law's
// metadata is known to name those: the emulators name no other).
func plainDossiers(ds []string) []string {
	var out []string
	for _, d := range ds {
		if !strings.Contains(d, "-") {
			out = append(out, d)
		}
	}
	return out
}

// chain makes the Staatsblad publication and the law of dossier d: stb
// 2026-(900+i), issued the day before the emulators' day, the law
// BWBR91000(i) in force from 2027-01-01.
func chain(d string, i int) (obemu.Law, bwbemu.Law) {
	stb := obemu.Law{Year: 2026, Number: 900 + i, Dossier: d, Issued: "2026-11-28", Signed: "2026-11-25",
		Title: fmt.Sprintf("Wet van 25 november 2026 tot wijziging van enige wetten (dossier %s)", d)}
	law := bwbemu.Law{ID: fmt.Sprintf("BWBR91%05d", i), Title: fmt.Sprintf("Wet tijdelijke regels %d", i), InForce: "2027-01-01",
		Year: 2026, Number: 900 + i, Issued: "2026-11-28", Signed: "2026-11-25", Dossier: d}
	return stb, law
}

// Chain is the three emulators with laws made from the first n
// plain dossiers with votes, and those dossiers.
func Chain(t *testing.T, n int) (map[string]http.Handler, []string, []string) {
	clk := fakeclock.New(Now)
	tk := tkemu.New(tkemu.Config{Seed: 1, Clock: clk})
	voted := VotedDossiers(t, tk)
	plain := plainDossiers(voted)
	if len(plain) < n+1 {
		t.Fatalf("%d plain dossiers with votes, want %d", len(plain), n+1)
	}
	var stbs []obemu.Law
	var laws []bwbemu.Law
	for i, d := range plain[:n] {
		s, l := chain(d, i)
		stbs, laws = append(stbs, s), append(laws, l)
	}
	ob := obemu.New(obemu.Config{Seed: 1, Clock: clk, Laws: stbs})
	bwb := bwbemu.New(bwbemu.Config{Clock: clk, Laws: laws})
	// Warm each emulator (its data is built on first use), so a cold
	// timeline below measures the cache, not the emulator's start.
	for _, w := range []struct {
		h    http.Handler
		path string
	}{{ob, "/sru?operation=searchRetrieve&version=2.0&query=dt.identifier==stb-2026-900"}, {bwb, "/bwb/BWBR0008326/manifest.xml"}} {
		rec := httptest.NewRecorder()
		w.h.ServeHTTP(rec, httptest.NewRequest("GET", w.path, nil))
		if rec.Code != 200 {
			t.Fatalf("%s: %d", w.path, rec.Code)
		}
	}
	return map[string]http.Handler{platforms.TK: tk, platforms.OB: ob, platforms.BWB: bwb}, plain[:n], plain[n:]
}

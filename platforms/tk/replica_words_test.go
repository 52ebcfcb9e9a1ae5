package tk

import (
	"context"
	"testing"

	"github.com/besluitbron/besluitbron/platforms/tk/localindex"
)

// The replica's word hits carry their kamerstuk numbers as OData's search
// hits do ($expand of the dossier): the same number for every document
// both give, so the fan-out folds a kamerstuk with Officiële
// Bekendmakingen' copy from either.
func TestReplicaHitsCarryTheirKamerstuk(t *testing.T) {
	h := votesEmulator()
	idx := timelineReplicaOf(t, h, true)
	var log []string
	get := emuGetter(h, &log)
	s := emuSchema(t, get, DefaultRoot)
	e, err := s.Entity("Document")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	compared, numbered := 0, 0
	for _, word := range []string{"stikstof", "woningbouw", "politiecapaciteit", "netcongestie", "jeugdzorg"} {
		odata, err := Search(e, SearchParams{Query: word, Limit: 100}, get)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{}
		for _, hit := range odata.Hits {
			want[hit.ID] = hit.Kamerstuk
		}
		res, err := idx.SearchDocuments(ctx, localindex.Query{Words: word, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, hit := range hitsOf(ctx, idx, res.Hits) {
			k, ok := want[hit.ID]
			if !ok {
				continue // the platform matches parts of words: its pages differ
			}
			compared++
			if hit.Kamerstuk != k {
				t.Errorf("%s (%q): the replica says kamerstuk %q, OData %q", hit.ID, word, hit.Kamerstuk, k)
			}
			if k != "" {
				numbered++
			}
		}
	}
	if compared < 20 || numbered == 0 {
		t.Fatalf("%d hits compared, %d of them kamerstukken", compared, numbered)
	}
	t.Logf("%d hits compared, %d of them kamerstukken", compared, numbered)
}

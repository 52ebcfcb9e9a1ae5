package emulator

// The SyncFeed's links that OData shows as navigation with no _Id field:
// a Besluit's zaken (<zaak ref="…"/>, one per zaak, as the real feed
// writes a decision about two zaken), a Zaak's and a Document's dossier
// (<kamerstukdossier ref="…"/>), and a Document's zaken (<zaak ref="…"/>,
// as tkconv's tkconv.cc reads them from a document into its Link table).
// The replica joins votes, a document's votes and a dossier's timeline on
// them (platforms/tk/votes_replica.go, timeline_replica.go); OData's
// $expand reads the same data (odata.go's navMap). A zaak and its
// document share their row number, and so their dossier.

// feedLink is one link element of an entity in the SyncFeed.
type feedLink struct{ element, ref string }

// feedLinks are the links of entity id of type t beyond its _Id fields.
func (d *Data) feedLinks(t *entityType, id string) []feedLink {
	switch t {
	case tBesluit:
		b, ok := d.sets["Besluit"].byID[id]
		if !ok || b >= len(d.besluitDoc) {
			return nil
		}
		return []feedLink{{"zaak", d.sets["Zaak"].rows[d.besluitDoc[b]][0].(string)}}
	case tZaak, tDocument:
		i, ok := d.sets[t.name].byID[id]
		if !ok || i >= len(d.docs) {
			return nil
		}
		var out []feedLink
		if z := d.sets["Zaak"]; t == tDocument && i < len(z.rows) {
			out = append(out, feedLink{"zaak", z.rows[i][0].(string)})
		}
		if d.docs[i].Dossier >= 0 {
			out = append(out, feedLink{"kamerstukdossier", d.sets["Kamerstukdossier"].rows[d.docs[i].Dossier][0].(string)})
		}
		return out
	}
	return nil
}

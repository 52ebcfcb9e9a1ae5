package emulator

import (
	"fmt"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// The entities around a decision: who submitted a zaak (ZaakActor), the
// plenary vote (Activiteit "Stemmingen" → Agendapunt → Besluit) and the
// votes per fractie or per member (Stemming). Fields as in the Besluit
// fixtures.
var (
	tZaakActor = newType("ZaakActor",
		prop{"Id", kGUID}, prop{"Zaak_Id", kGUID}, prop{"ActorNaam", kString}, prop{"ActorFractie", kString},
		prop{"ActorAfkorting", kString}, prop{"Functie", kString}, prop{"Relatie", kString}, prop{"SidActor", kString},
		prop{"Persoon_Id", kGUID}, prop{"Fractie_Id", kGUID}, prop{"Commissie_Id", kGUID},
		prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
	tStemming = newType("Stemming",
		prop{"Id", kGUID}, prop{"Besluit_Id", kGUID}, prop{"Soort", kString}, prop{"FractieGrootte", kInt},
		prop{"ActorNaam", kString}, prop{"ActorFractie", kString}, prop{"Vergissing", kBool},
		prop{"SidActorLid", kString}, prop{"SidActorFractie", kString}, prop{"Persoon_Id", kGUID},
		prop{"Fractie_Id", kGUID}, prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
	tAgendapunt = newType("Agendapunt",
		prop{"Id", kGUID}, prop{"Nummer", kString}, prop{"Onderwerp", kString}, prop{"Aanvangstijd", kDate},
		prop{"Eindtijd", kDate}, prop{"Volgorde", kInt}, prop{"Rubriek", kString}, prop{"Noot", kString},
		prop{"Status", kString}, prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool},
		prop{"Activiteit_Id", kGUID})
	tActiviteit = newType("Activiteit",
		prop{"Id", kGUID}, prop{"Soort", kString}, prop{"Nummer", kString}, prop{"Onderwerp", kString},
		prop{"DatumSoort", kString}, prop{"Datum", kDate}, prop{"Aanvangstijd", kDate}, prop{"Eindtijd", kDate},
		prop{"Locatie", kString}, prop{"Besloten", kBool}, prop{"Status", kString}, prop{"Vergaderjaar", kString},
		prop{"Kamer", kString}, prop{"Noot", kString}, prop{"VRSNummer", kString}, prop{"SidVoortouw", kString},
		prop{"Voortouwnaam", kString}, prop{"Voortouwafkorting", kString}, prop{"Voortouwkortenaam", kString},
		prop{"Voortouwcommissie_Id", kGUID}, prop{"Aanvraagdatum", kDate},
		prop{"DatumVerzoekEersteVerlenging", kDate}, prop{"DatumMededelingEersteVerlenging", kDate},
		prop{"DatumVerzoekTweedeVerlenging", kDate}, prop{"DatumMededelingTweedeVerlenging", kDate},
		prop{"Vervaldatum", kDate}, prop{"GewijzigdOp", kDate}, prop{"ApiGewijzigdOp", kDate}, prop{"Verwijderd", kBool})
)

// sid is a stable Windows-style security id, as the API exposes them.
func sid(seed int64, parts ...any) string {
	r := corpus.Rand(seed, append([]any{"tk-sid"}, parts...)...)
	return fmt.Sprintf("S-1-365867521-2120874753-%d-%d-%d-%d", r.Uint32(), r.Uint32(), r.Uint32(), r.Uint32())
}

// localTime formats t (UTC) as Dutch local time without fraction.
func localTime(t time.Time) string { return amsterdam(t).Format("2006-01-02T15:04:05-07:00") }

// actorName is "R.M. Leijten" style: initials, tussenvoegsel, surname.
func actorName(p row) string {
	parts := []string{p[3].(string)}
	if tv, ok := p[4].(string); ok {
		parts = append(parts, tv)
	}
	parts = append(parts, p[5].(string))
	return strings.Join(parts, " ")
}

// voteContext holds what the vote generation needs from generate().
type voteContext struct {
	d        *Data
	add      func(s *set, r row, api time.Time) int
	sZA, sS  *set
	sAP, sAC *set
	actByDay map[string]int
	active   []int // active fractie indexes
	current  []int // current member persoon indexes
}

// zaakActors adds the indiener (when there is one) and the voortouwcommissie.
func (v *voteContext) zaakActors(i int, zaakID string, day time.Time) {
	d, seed := v.d, v.d.seed
	info := d.docs[i]
	r := corpus.Rand(seed, "tk-zaakactor", i)
	if info.Persoon >= 0 {
		p := d.sets["Persoon"].rows[info.Persoon]
		fi := d.persoonFractie[info.Persoon]
		gew, api, at := stamps(r, day.Add(10*time.Hour))
		v.add(v.sZA, row{guid(seed, "ZaakActor", i, "indiener"), zaakID, actorName(p), fracties[fi].abbr, nil,
			"Tweede Kamerlid", "Indiener", sid(seed, "persoon", info.Persoon), p[0], guid(seed, "Fractie", fi), nil,
			gew, api, false}, at)
	}
	if info.Commissie >= 0 {
		c := commissies[info.Commissie]
		gew, api, at := stamps(r, day.Add(11*time.Hour))
		v.add(v.sZA, row{guid(seed, "ZaakActor", i, "voortouw"), zaakID, "vaste commissie voor " + c.naam, nil, c.afk,
			nil, "Voortouwcommissie", sid(seed, "commissie", info.Commissie), nil, nil, guid(seed, "Commissie", info.Commissie),
			gew, api, false}, at)
	}
}

// nextTuesday is the first Tuesday after day (plenary votes are on Tuesdays).
func nextTuesday(day time.Time) time.Time {
	t := day.AddDate(0, 0, 1)
	for t.Weekday() != time.Tuesday {
		t = t.AddDate(0, 0, 1)
	}
	return t
}

// activiteit returns the "Stemmingen" activity of a voting day.
func (v *voteContext) activiteit(vote time.Time) int {
	key := vote.Format("2006-01-02")
	if k, ok := v.actByDay[key]; ok {
		return k
	}
	seed := v.d.seed
	r := corpus.Rand(seed, "tk-activiteit", key)
	start := time.Date(vote.Year(), vote.Month(), vote.Day(), 14, 0, 0, 0, time.UTC)
	end := start.Add(time.Duration(30+r.IntN(90)) * time.Minute)
	status := "Uitgevoerd"
	if !vote.Before(v.d.end) {
		status = "Gepland"
	}
	gew, api, at := stamps(r, end.Add(time.Duration(1+r.IntN(48))*time.Hour))
	k := v.add(v.sAC, row{guid(seed, "Activiteit", key), "Stemmingen", fmt.Sprintf("%dA%05d", vote.Year(), 1000+len(v.actByDay)*9+r.IntN(9)),
		"Stemmingen", "Dag", localTime(start), localTime(start), localTime(end), nil, false, status, vergaderjaar(vote),
		"Tweede Kamer", nil, nil, sid(seed, "plenaire"), "TK", "TK", "TK", guid(seed, "Commissie", "TK"),
		nil, nil, nil, nil, nil, nil, gew, api, false}, at)
	v.actByDay[key] = k
	return k
}

// vote adds the agendapunt and the votes of the besluit about document i and
// returns the agendapunt's id.
func (v *voteContext) vote(i int, vote time.Time, soort, stemSoort, topic string) string {
	d, seed := v.d, v.d.seed
	act := v.activiteit(vote)
	actID := v.sAC.rows[act][0].(string)
	r := corpus.Rand(seed, "tk-agendapunt", i)
	apID := guid(seed, "Agendapunt", i)
	gew, api, at := stamps(r, vote.Add(-time.Duration(2+r.IntN(72))*time.Hour))
	v.add(v.sAP, row{apID, fmt.Sprintf("%dP%05d", vote.Year(), 1000+i*3+r.IntN(3)),
		"Moties ingediend bij het debat over " + topic, nil, nil, 1 + r.IntN(40), nil, nil, "Vrijgegeven",
		gew, api, false, actID}, at)
	if !strings.HasPrefix(soort, "Stemmen") {
		return apID
	}
	besluitID := guid(seed, "Besluit", i)
	// each active fractie leans for or against; the sum must give the result
	vr := corpus.Rand(seed, "tk-stemming", i)
	voor := make([]bool, len(v.active))
	total := 0
	for k, fi := range v.active {
		voor[k] = vr.IntN(2) == 0
		if voor[k] {
			total += fracties[fi].seats
		}
	}
	want := soort == "Stemmen - aangenomen"
	for k := 0; k < len(v.active) && (total > 75) != want; k++ {
		if voor[k] != want {
			voor[k] = want
			if want {
				total += fracties[v.active[k]].seats
			} else {
				total -= fracties[v.active[k]].seats
			}
		}
	}
	sgew, sapi, sat := stamps(vr, vote.Add(17*time.Hour))
	soortOf := func(b bool) string {
		if b {
			return "Voor"
		}
		return "Tegen"
	}
	if stemSoort != "Hoofdelijk" {
		for k, fi := range v.active {
			f := fracties[fi]
			v.add(v.sS, row{guid(seed, "Stemming", i, fi), besluitID, soortOf(voor[k]), f.seats, f.abbr, f.abbr, false,
				nil, sid(seed, "fractie", fi), nil, guid(seed, "Fractie", fi), sgew, sapi, false}, sat)
		}
		return apID
	}
	pos := map[int]int{}
	for k, fi := range v.active {
		pos[fi] = k
	}
	for _, p := range v.current {
		fi := d.persoonFractie[p]
		pr := d.sets["Persoon"].rows[p]
		v.add(v.sS, row{guid(seed, "Stemming", i, "p", p), besluitID, soortOf(voor[pos[fi]]), fracties[fi].seats,
			actorName(pr), fracties[fi].abbr, false, sid(seed, "persoon", p), sid(seed, "fractie", fi), pr[0],
			guid(seed, "Fractie", fi), sgew, sapi, false}, sat)
	}
	return apID
}

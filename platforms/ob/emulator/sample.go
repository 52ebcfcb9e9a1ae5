package emulator

// sampleRecord is the one publication the emulator holds as the platform
// published it: gmb-2023-174296, the record of the real search answer in
// testdata/fixtures/ob/sru-record-gmb.fragment.xml, field by field (its
// README names the origin). It is the publication the live check asks by
// default (ob.DefaultProbeID), so the check finds it offline too; every
// other publication is generated in the same shape.
func sampleRecord(k *kind) *pub {
	return &pub{
		ID: "gmb-2023-174296", Kind: k, Year: 2023, Number: "174296",
		Title: "Ingekomen melding, Frater Romboutsstraat 42 5571KZ Bergeijk, verwijderen van asbest van het dak",
		Type:  "omgevingsvergunning", TypeScheme: "OVERHEIDop.Rubriek",
		Creator: "Bergeijk", Scheme: "OVERHEID.Gemeente", OrgType: "gemeente",
		Subject:  "Ruimte en infrastructuur | Organisatie en beleid",
		Abstract: "verwijderen van asbest van het dak",
		Status:   "Opgemaakt",
		Date:     "2023-04-20", Issued: "2023-04-20", Modified: "2023-04-20",
		Stamp:    "2023-04-20T10:35:38.545935+02:00",
		Activity: [2]string{"slopen", "verwijderen van asbest van het dak"},
		Points:   2,
		Street:   "Frater Romboutsstraat 42 5571KZ Bergeijk",
	}
}

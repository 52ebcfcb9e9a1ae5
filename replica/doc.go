// Package replica is the one mechanism by which BesluitBron keeps a
// platform's data itself, from the platform's own change feed, so that
// it can answer questions (words, above all) the platform answers slowly,
// expensively or not at all. Rechtspraak's case law is the first replica
// (platforms/rechtspraak/caselaw); issue 35 brings OpenBesluitvorming's.
//
// The package holds what every replica shares and knows no platform and
// no Caddy:
//
//   - the contract a platform implements (Provider, provider.go): its
//     replica's name and defaults, how to open its index in a directory,
//     how to build its harvester, and, optionally (Offerer), what the
//     replica gives the platform's surface;
//   - the rule that visitors go first (VisitorsFirst, gate.go): a
//     harvest asks the platform only while nobody waits in its budget's
//     queue and half the budget is unspent;
//   - one harvest for several instances (Relay, relay.go; Lease and its
//     Board in Redis, lease.go): one instance leads, the others follow
//     page by page, so the shared cache tier answers their requests;
//   - progress, status and provenance (progress.go, status.go): how far a
//     replica got, as the status page, the admin API, the metrics and a
//     search's provenance say it;
//   - the typed failures of an index (errors.go): disk full, corrupt, a
//     foreign directory, unavailable, and what the public may read of
//     them (PublicReason).
//
// The model is libdns: one small interface a provider implements, and
// each optional ability a separate small interface, so the host (the
// besluitbron app) asks what a provider can do instead of knowing it.
// The index itself (its documents, mapping and queries) stays with the
// platform: a replica's index is whatever the provider opens, and the
// host only asks whether it still answers (Index) and closes it. The
// bleve index on disk beneath it (the mapping stamp, the foreign-folder
// refusal, the lock, a batch with its checkpoint, bleve's background
// failures) is every platform's alike: replica/bleveindex.
package replica

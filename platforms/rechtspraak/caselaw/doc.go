// Package caselaw keeps a local full-text index of Rechtspraak's open-data
// feed (/uitspraken/zoeken), because the platform itself has no free-text
// search. It holds three mechanisms, none of them tied to Caddy:
//
//   - Index: the decisions in a replica's bleve index on disk
//     (replica/bleveindex: batches that carry the harvest checkpoint with
//     them, judged by its mapping stamp when opened, stopping, visibly, at
//     the first failed write or corrupt file) under the decisions' mapping
//     (Dutch analyzer, BM25 scoring) (index.go, mapping.go).
//   - Search: word queries (all words must match, phrases in double quotes)
//     with court, date range and type filters, by relevance or newest
//     first, built programmatically so user text never reaches bleve's
//     query-string syntax (query.go, search.go); queries of words read
//     the segments' postings directly, beside bleve and held to its
//     answers (fastpath.go), and the date order reads windows of days
//     sized to hold the page (datewindows.go).
//   - Harvester: the background loop that pages through the feed behind an
//     injected gate and clock, resumes where it stopped after a restart and
//     reports its progress (harvester.go, paging.go, progress.go).
//
// The feed parser, the platform's budget and the Caddy wiring live
// elsewhere: the harvester only sees a page fetcher and a gate.
package caselaw

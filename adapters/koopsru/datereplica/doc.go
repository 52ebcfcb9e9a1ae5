// Package datereplica is the replica the platforms on KOOP's SRU share
// (Officiële Bekendmakingen, the laws of the BWB, the local regulations of
// the CVDR): the records modified in a span of days, harvested window by
// window, held in one bleve index (replica/bleveindex) that answers the
// words and filters each platform's search asks. Each platform gives its
// Source (how to ask a window, how to read a record) and registers its
// own replica.Provider; this package names no platform.
//
// KOOP's SRU pages by startRecord and maximumRecords, and public clients
// report pages cut without warning above 1,000 records (100 on one
// connection). So the harvest trusts no page size (windows.go): a window
// of days whose first page is not whole is split into smaller windows,
// down to one day; a day is paged by startRecord at the size the service
// was seen to give; a day holding more than paging reaches is reported on
// Progress.Unread, never skipped silently. The passes themselves (their
// start, retries with Retry-After, relay between instances, progress) are
// replica.Rounds', a pass being one round of one part: its windows.
package datereplica

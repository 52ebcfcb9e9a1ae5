// Package bleveindex is a replica's index on disk: a bleve index under
// the platform's own mapping, which every replica opens and writes alike.
// It knows no platform and no Caddy; the platform brings its mapping and
// documents, reads its checkpoint and runs its own queries on it.
//
//   - Open (open.go) opens or creates the index in a directory. The index
//     carries a stamp of its mapping (Stamp): one written with another is
//     rebuilt empty, never read. A folder holding files no index writes is
//     refused (replica.ErrForeign) and left as it is; another process's
//     index is replica.ErrLocked; unreadable files replica.ErrCorrupt.
//   - Apply (index.go) writes a batch of upserts and deletes (Op) together
//     with the platform's checkpoint, opaque bytes, in one bleve batch:
//     after a crash both are on disk or neither. A generation beside the
//     index finds a bleve that fell back to an older snapshot.
//   - The first failed write, corrupt file or background failure of bleve
//     (failure.go) makes the index unavailable for good, with the
//     replica's typed errors (replica.UnavailableError): it never serves
//     what may be half a batch.
//
// Search runs the platform's queries under the same rules; Bleve gives
// the bleve index itself for the rest.
package bleveindex

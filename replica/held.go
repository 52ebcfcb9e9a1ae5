package replica

import "errors"

// What a platform's search asks of the replica held now, the same way for
// every platform's offer: the index and harvester as their own types, or
// why there are none; whether a pass has completed; and what a failed
// lookup means. Each returns the reason in the words a provenance shows
// (PublicReason: never a path or the system's words for the cause).

// Opened is the index and harvester held now as I and H, or why a search
// cannot ask them ("" when it can): not open, or not of the kind a
// platform's offer reads (what names that kind: "a parliament index").
func Opened[I Index, H Harvester](held Held, what string) (idx I, h H, why string) {
	ix, hv, err := held.Current()
	if err != nil {
		return idx, h, "the replica is not open (" + PublicReason(err) + ")"
	}
	idx, ok := ix.(I)
	h, ok2 := hv.(H)
	if !ok || !ok2 {
		return idx, h, "the replica is not " + what
	}
	return idx, h, ""
}

// Unready says why a replica at p answers nothing yet: its harvest
// stopped on an index failure, or no pass has completed; "" when it
// answers.
func Unready(p Progress) string {
	switch {
	case p.Stopped != nil:
		return "the replica stopped (" + PublicReason(p.Stopped) + ")"
	case p.CompleteUpTo.IsZero():
		return "the replica is still being built"
	}
	return ""
}

// LookupFailed says why a lookup in the index held failed: an index that
// is unavailable (*UnavailableError) is reported to held, which logs it
// once; anything else is a question the index does not take.
func LookupFailed(held Held, err error) string {
	var down *UnavailableError
	if errors.As(err, &down) {
		held.Broken(err)
		return "the replica failed (" + PublicReason(err) + ")"
	}
	return "the replica cannot take the question (" + err.Error() + ")"
}

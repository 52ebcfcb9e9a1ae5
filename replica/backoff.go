package replica

import "time"

// Backoff is the wait before the next try after failures failed tries in a
// row: least, doubled per failure, never more than most.
func Backoff(least, most time.Duration, failures int) time.Duration {
	d := least
	for range failures {
		if d >= most/2 {
			return most
		}
		d *= 2
	}
	return min(d, most)
}

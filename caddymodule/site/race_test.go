//go:build race

package site_test

// raceDetector: the race detector slows a harvest of the whole feed
// several times over; under it the harvest tests take a scope of the feed
// (.ci/run runs the whole feed again without it).
const raceDetector = true

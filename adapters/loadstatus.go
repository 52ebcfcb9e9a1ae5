package adapters

import "time"

// LoadReporter is a platform that publishes how its own import of its
// sources is going (OpenBesluitvorming's Laadstatus: per organisation,
// per supplier). BesluitBron keeps it fresh in the background as the
// shared session (the besluitbron app's keeper), so its tools and the
// status page read it without asking the platform.
type LoadReporter interface {
	// LoadStatusName is what the platform calls it ("Laadstatus").
	LoadStatusName() string
	// LoadStatusRequest asks the platform for it.
	LoadStatusRequest() Request
	// ParseLoadStatus reads the answer.
	ParseLoadStatus(body []byte) (LoadStatus, error)
}

// LoadStatus is a platform's load status: its own value, which its tools
// read, and a summary, which the status page shows.
type LoadStatus struct {
	// Value is the platform's own reading, which its tools read.
	Value   any
	Summary LoadSummary
}

// LoadSummary is a load status in short: how many of the platform's
// sources import fine, and the same per group of sources (a supplier).
type LoadSummary struct {
	OK, Total int
	Groups    []LoadGroup
}

// LoadGroup is one group of sources (a council information system).
type LoadGroup struct {
	Label, State string
	OK, Count    int
}

// KeptLoadStatus is a load status as BesluitBron fetched it: when, the
// cache's answer (hit, miss, ...) and how long it waited in the queue.
type KeptLoadStatus struct {
	LoadStatus
	Fetched     time.Time
	Cache       string
	QueueWaitMS int64
}

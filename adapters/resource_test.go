package adapters

import (
	"sync"
	"testing"
)

// ExpandURI keeps each parsed template, and the kept one expands as a new
// parse would, from many goroutines at once; a template that does not
// parse fails every time and is never kept.
func TestExpandURIKeepsItsTemplates(t *testing.T) {
	const tmpl = Scheme + "://rechtspraak/{ecli}{?page}"
	want := "besluitbron://rechtspraak/ECLI%3ANL%3AHR%3A2014%3A952"
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got, err := ExpandURI(tmpl, map[string]string{"ecli": "ECLI:NL:HR:2014:952"}); err != nil || got != want {
					t.Errorf("ExpandURI = %q, %v; want %q", got, err, want)
					return
				}
			}
		})
	}
	wg.Wait()
	if got, _ := ExpandURI(tmpl, map[string]string{"ecli": "x", "page": "2"}); got != "besluitbron://rechtspraak/x?page=2" {
		t.Errorf("with a page: %q", got)
	}
	for range 2 {
		if _, err := ExpandURI("besluitbron://x/{unclosed", nil); err == nil {
			t.Error("a template that does not parse expanded")
		}
	}
	if _, kept := parsedTemplates.Load("besluitbron://x/{unclosed"); kept {
		t.Error("a template that does not parse was kept")
	}
}

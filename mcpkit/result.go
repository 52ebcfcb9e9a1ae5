package mcpkit

import (
	"cmp"
	"fmt"
	"strings"
	"sync"

	mcpgo "github.com/mark3labs/mcp-go/mcp"

	"github.com/besluitbron/besluitbron/adapters"
	"github.com/besluitbron/besluitbron/platforms"
)

// What a platform's tools are made of: the argument groups several tools
// share, the result shapes every platform's search and fetch return, and
// the isError results of refused arguments and unreadable answers.

// DatesIn are a search's date bounds.
type DatesIn struct {
	DateFrom string `json:"date_from,omitempty" jsonschema_description:"Earliest date, YYYY-MM-DD."`
	DateTo   string `json:"date_to,omitempty" jsonschema_description:"Latest date, YYYY-MM-DD."`
}

// TextPageIn is the page of full text a fetch tool returns. The
// connector's max_text_chars may cap max_chars lower (Env.Chars): the text
// then ends earlier and next_offset says where to go on.
type TextPageIn struct {
	Offset   int `json:"offset,omitempty" jsonschema_description:"Character offset in the full text to start from (use next_offset of the previous call)." jsonschema_extras:"minimum=0,maximum=1073741824,default=0"`
	MaxChars int `json:"max_chars,omitempty" jsonschema_description:"At most this many characters of text; the connector may cap it lower (max_text_chars)." jsonschema_extras:"minimum=200,maximum=100000,default=8000"`
}

// Meta opens every tool result: which platform answered, whether all
// answers it was built from came from BesluitBron's cache, and how long
// they waited for the platform's budget. The connector fills it from the
// platform answers the call made (a tool leaves it empty, or sets its
// own where the answers do not say it).
type Meta struct {
	Platform    string `json:"platform" jsonschema_description:"Platform key the result comes from (besluitbron for the connector's own)."`
	FromCache   bool   `json:"from_cache" jsonschema_description:"Every platform answer behind this result came from BesluitBron's cache."`
	QueueWaitMS int64  `json:"queue_wait_ms" jsonschema_description:"Milliseconds the platform calls waited for the platform's budget."`
	CacheStatus string `json:"cache_status,omitempty" jsonschema_description:"The Cache-Status of each platform answer, comma-separated."`
	FetchedAt   string `json:"fetched_at,omitempty" jsonschema_description:"When the platform gave the oldest answer behind this result (RFC 3339): now, or when BesluitBron's cache stored it."`
}

// ResultMeta is the result's Meta, for the connector to fill.
func (m *Meta) ResultMeta() *Meta { return m }

// PageOut is a search tool's page of hits.
type PageOut struct {
	Meta
	Total       int            `json:"total" jsonschema_description:"Hits in all (see total_is_approximate)."`
	TotalApprox bool           `json:"total_is_approximate,omitempty" jsonschema_description:"total is the platform's estimate."`
	HasMore     bool           `json:"has_more" jsonschema_description:"More hits follow this page."`
	NextOffset  int            `json:"next_offset,omitempty" jsonschema_description:"offset of the next page, when has_more."`
	Results     []adapters.Hit `json:"results" jsonschema_description:"The hits of this page."`
}

// NewPage renders platform's search page that started at offset, each hit
// with its resource URI.
func NewPage(platform string, p adapters.Page, offset int) *PageOut {
	out := &PageOut{Total: p.Total, TotalApprox: p.TotalApprox, HasMore: p.HasMore, Results: p.Hits}
	if out.Results == nil {
		out.Results = []adapters.Hit{}
	}
	SurfaceOf(platform).Link(out.Results)
	if p.HasMore {
		out.NextOffset = offset + len(p.Hits)
	}
	return out
}

// DocOut is a fetched document with one bounded page of its text.
type DocOut struct {
	Meta
	Document   adapters.Document `json:"document" jsonschema_description:"The document's metadata."`
	Text       string            `json:"text" jsonschema_description:"One page of the document's text."`
	TextOffset int               `json:"text_offset" jsonschema_description:"Character offset of text in the full text."`
	TotalChars int               `json:"total_chars" jsonschema_description:"Characters of the full text."`
	NextOffset int               `json:"next_offset,omitempty" jsonschema_description:"offset to pass for the next page of text, when there is more."`
	Note       string            `json:"note,omitempty" jsonschema_description:"What to do for more text."`
}

// NewDoc renders platform's document with the page of text from offset,
// at most max characters, and its resource URI.
func NewDoc(platform string, d adapters.Document, offset, max int) *DocOut {
	tp := adapters.PageText(d.Text, offset, max)
	if s := SurfaceOf(platform); d.URI == "" && s.URI != nil {
		d.URI = s.URI(d.ID, d.Type)
	}
	out := &DocOut{Document: d, Text: tp.Text, TextOffset: tp.Offset, TotalChars: tp.TotalChars}
	if tp.NextOffset > 0 {
		out.NextOffset = tp.NextOffset
		out.Note = fmt.Sprintf("Text cut at %d of %d characters; call again with offset=%d for more.", tp.NextOffset, tp.TotalChars, tp.NextOffset)
	}
	return out
}

// ResourceLinks are the documents a page names, for resource_link
// content beside the text.
func (p *PageOut) ResourceLinks() []mcpgo.ResourceLink {
	var out []mcpgo.ResourceLink
	for _, h := range p.Results {
		if h.URI != "" {
			out = append(out, DocumentLink(h.URI, h.ID, h.Title, h.Citation, h.Date))
		}
	}
	return out
}

// ResourceLinks is the document's resource_link.
func (d *DocOut) ResourceLinks() []mcpgo.ResourceLink {
	if d.Document.URI == "" {
		return nil
	}
	return []mcpgo.ResourceLink{DocumentLink(d.Document.URI, d.Document.ID, d.Document.Title, d.Document.Citation, d.Document.Date)}
}

// Markdown is the MIME type of a document read as a resource.
const Markdown = "text/markdown"

// DocumentLink is a document's resource_link: named by its citation where
// it has one, described by its title and date.
func DocumentLink(uri, id, title, citation, date string) mcpgo.ResourceLink {
	desc := title
	if date != "" {
		desc = strings.TrimSpace(desc + " (" + date + ")")
	}
	l := mcpgo.NewResourceLink(uri, cmp.Or(citation, id), desc, Markdown)
	l.Title = cmp.Or(title, citation, id)
	return l
}

// Invalid is the isError result for arguments a platform package refused.
func Invalid(err error) *mcpgo.CallToolResult {
	return mcpgo.NewToolResultError("Invalid arguments: " + err.Error() + ".")
}

// ParseFailed is the isError result for an answer that did not parse.
func ParseFailed(platform string, err error) *mcpgo.CallToolResult {
	p, _ := platforms.Get(platform)
	return mcpgo.NewToolResultError(fmt.Sprintf("%s answered, but not in the expected form: %v", p.Name, err))
}

// SurfaceOf is platform's surface with no settings: what gives hits and
// documents their resource URIs (Surface.Link, URI), which depend on the
// platform alone.
func SurfaceOf(platform string) adapters.Surface { return plainSurfaces()[platform] }

// plainSurfaces are every platform's surface with no settings, built at
// first use, once every platform has registered.
var plainSurfaces = sync.OnceValue(func() map[string]adapters.Surface {
	out := map[string]adapters.Surface{}
	for _, p := range platforms.Providers() {
		if sp, ok := p.(adapters.SurfaceProvider); ok {
			out[p.Platform().Key] = sp.Surface(noSettings{})
		}
	}
	return out
})

// noSettings is the configuration of no operator: every default.
type noSettings struct{}

func (noSettings) Setting(key string) any {
	v, _ := platforms.SettingsOf(key, nil)
	return v
}
func (noSettings) Replica(string) any        { return nil }
func (noSettings) LinkBases(string) []string { return nil }
func (noSettings) Offers(string) bool        { return false }

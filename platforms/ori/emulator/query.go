package emulator

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/besluitbron/besluitbron/emulators/corpus"
)

// esError is an Elasticsearch error: the HTTP status, the root cause type
// and reason, and the outer type (often search_phase_execution_exception).
type esError struct {
	status     int
	typ        string
	reason     string
	outerType  string
	outerRsn   string
	extraFlds  map[string]any
	rootExtras map[string]any
}

func (e *esError) Error() string { return e.typ + ": " + e.reason }

func parsingErr(format string, args ...any) *esError {
	return &esError{status: 400, typ: "parsing_exception", reason: fmt.Sprintf(format, args...), rootExtras: map[string]any{"line": 1, "col": 1}}
}

func illegalArg(format string, args ...any) *esError {
	return &esError{status: 400, typ: "illegal_argument_exception", reason: fmt.Sprintf(format, args...)}
}

func shardErr(typ, reason string) *esError {
	return &esError{status: 400, typ: typ, reason: reason, outerType: "search_phase_execution_exception", outerRsn: "all shards failed"}
}

// ---- query tree ----

type qnode interface{}

type (
	matchAllQ  struct{}
	matchNoneQ struct{}
	textQ      struct {
		fields []string
		words  []string
		prefix bool // last word is a prefix
	}
	termQ struct {
		field  string
		values []string
	}
	rangeQ struct {
		field            string
		gte, gt, lte, lt *time.Time
	}
	existsQ struct{ field string }
	boolQ   struct {
		must, filter, should, mustNot []qnode
		minShould                     int
	}
)

// keyword fields hold one exact value per document.
var keywordFields = map[string]bool{"_id": true, "@id": true, "_index": true, "@type": true, "has_organization_name": true,
	"content_type": true, "is_referenced_by": true, "original_url": true, "url": true, "name.keyword": true,
	"classification": true, "collection": true}

// text fields are analysed; text, md_text and text_pages.text are indexed
// by their first paragraph only (see docs/emulators.md).
var textFields = map[string]bool{"name": true, "text": true, "md_text": true, "text_pages.text": true, "title": true, "description": true}

var defaultFields = []string{"name", "text", "@type"}

func (c *corpusData) keyword(d *doc, field string) (string, bool) {
	if d.org {
		switch field {
		case "_id", "@id":
			return d.id, true
		case "_index":
			return d.idx.name, true
		case "@type":
			return "Organization", true
		case "name.keyword", "name":
			return d.name, true
		case "classification":
			return classification(d.idx.org.Type), true
		case "collection":
			return d.idx.org.Key, true
		}
		return "", false
	}
	switch field {
	case "_id", "@id":
		return d.id, true
	case "_index":
		return d.idx.name, true
	case "@type":
		return "MediaObject", true
	case "has_organization_name":
		return d.idx.orgID, true
	case "content_type":
		return "application/pdf", true
	case "is_referenced_by":
		return d.meeting, true
	case "original_url":
		return originalURL(d), true
	case "url":
		return resolveURL(d), true
	case "name.keyword", "name":
		return d.name, true
	}
	return "", false
}

func resolveURL(d *doc) string {
	return "https://api.openraadsinformatie.nl/v1/resolve/" + d.idx.org.Key + "/" + d.id
}

// match evaluates q on d: whether it matches and its score.
func (c *corpusData) match(q qnode, d *doc) (bool, float64) {
	switch q := q.(type) {
	case matchAllQ:
		return true, 1
	case matchNoneQ:
		return false, 0
	case textQ:
		score := 0.0
		for _, f := range q.fields {
			var toks []string
			weight := 1.0
			switch {
			case f == "name" || f == "name.keyword":
				toks, weight = d.nameToks, 2
			case f == "text" || f == "md_text" || f == "text_pages.text" || f == "*":
				toks = d.headToks
			case f == "@type":
				if want, _ := c.keyword(d, "@type"); len(q.words) == 1 && q.words[0] == strings.ToLower(want) {
					score += 1
				}
				continue
			default:
				if v, ok := c.keyword(d, f); ok && len(q.words) > 0 && corpus.Fold(v) == strings.Join(q.words, " ") {
					score += 1
				}
				continue
			}
			score += weight * float64(countPhrase(toks, q.words, q.prefix))
		}
		return score > 0, score
	case termQ:
		v, ok := c.keyword(d, q.field)
		if !ok {
			if textFields[q.field] {
				for _, want := range q.values {
					if m, s := c.match(textQ{fields: []string{q.field}, words: []string{strings.ToLower(want)}}, d); m {
						return true, s
					}
				}
			}
			return false, 0
		}
		for _, want := range q.values {
			if want == v || (q.field == "_index" && strings.Contains(want, "*") && wildcard(want, v)) {
				return true, 1
			}
		}
		return false, 0
	case rangeQ:
		if q.field != "last_discussed_at" || d.org {
			return false, 0
		}
		t := d.discussed
		if q.gte != nil && t.Before(*q.gte) || q.gt != nil && !t.After(*q.gt) ||
			q.lte != nil && t.After(*q.lte) || q.lt != nil && !t.Before(*q.lt) {
			return false, 0
		}
		return true, 1
	case existsQ:
		if d.org {
			_, ok := c.keyword(d, q.field)
			return ok, 1
		}
		switch q.field {
		case "_id", "@id", "@type", "name", "content_type", "original_url", "url", "last_discussed_at",
			"is_referenced_by", "has_organization_name", "text", "md_text", "text_pages", "_index":
			return true, 1
		}
		return false, 0
	case boolQ:
		score := 0.0
		for _, m := range q.must {
			ok, s := c.match(m, d)
			if !ok {
				return false, 0
			}
			score += s
		}
		for _, m := range q.filter {
			if ok, _ := c.match(m, d); !ok {
				return false, 0
			}
		}
		for _, m := range q.mustNot {
			if ok, _ := c.match(m, d); ok {
				return false, 0
			}
		}
		hits := 0
		for _, m := range q.should {
			if ok, s := c.match(m, d); ok {
				hits++
				score += s
			}
		}
		need := q.minShould
		if need == 0 && len(q.should) > 0 && len(q.must) == 0 && len(q.filter) == 0 {
			need = 1
		}
		if hits < need {
			return false, 0
		}
		if score == 0 {
			score = 1
		}
		return true, score
	}
	return false, 0
}

func countPhrase(toks, words []string, prefix bool) int {
	if len(words) == 0 {
		return 0
	}
	n := 0
	for i := 0; i+len(words) <= len(toks); i++ {
		ok := true
		for j, w := range words {
			t := toks[i+j]
			if j == len(words)-1 && prefix {
				if !strings.HasPrefix(t, w) {
					ok = false
					break
				}
			} else if t != w {
				ok = false
				break
			}
		}
		if ok {
			n++
		}
	}
	return n
}

// wildcard matches s against a pattern where * stands for any run of
// characters.
func wildcard(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, last)
}

// ---- Query DSL ----

func (h *handler) parseDSL(v any) (qnode, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, parsingErr("[_na] query malformed, must start with start_object")
	}
	if len(m) != 1 {
		if len(m) == 0 {
			return matchAllQ{}, nil
		}
		return nil, parsingErr("[%s] malformed query, expected [END_OBJECT] but found [FIELD_NAME]", firstKey(m))
	}
	name := firstKey(m)
	body := m[name]
	switch name {
	case "match_all":
		return matchAllQ{}, nil
	case "match_none":
		return matchNoneQ{}, nil
	case "simple_query_string", "query_string":
		b, ok := body.(map[string]any)
		if !ok {
			return nil, parsingErr("[%s] query malformed, no start_object after query name", name)
		}
		qs, ok := b["query"].(string)
		if !ok {
			return nil, parsingErr("[%s] requires 'query' field", name)
		}
		fields := stringList(b["fields"])
		if df, ok := b["default_field"].(string); ok {
			fields = []string{df}
		}
		and := strings.EqualFold(fmt.Sprint(b["default_operator"]), "and")
		return parseLucene(qs, fields, and, name == "simple_query_string")
	case "match", "match_phrase", "match_phrase_prefix":
		b, ok := body.(map[string]any)
		if !ok || len(b) != 1 {
			return nil, parsingErr("[%s] query malformed, no start_object after query name", name)
		}
		field := firstKey(b)
		text, and := "", false
		switch x := b[field].(type) {
		case string:
			text = x
		case map[string]any:
			text = fmt.Sprint(x["query"])
			and = strings.EqualFold(fmt.Sprint(x["operator"]), "and")
		default:
			text = fmt.Sprint(x)
		}
		words := tokens(text)
		if name != "match" {
			return textQ{fields: []string{field}, words: words, prefix: name == "match_phrase_prefix"}, nil
		}
		return wordsBool([]string{field}, words, and), nil
	case "multi_match":
		b, ok := body.(map[string]any)
		if !ok {
			return nil, parsingErr("[multi_match] query malformed")
		}
		fields := stringList(b["fields"])
		if len(fields) == 0 {
			fields = defaultFields
		}
		words := tokens(fmt.Sprint(b["query"]))
		if b["type"] == "phrase" {
			return textQ{fields: fields, words: words}, nil
		}
		return wordsBool(fields, words, strings.EqualFold(fmt.Sprint(b["operator"]), "and")), nil
	case "term", "terms":
		b, ok := body.(map[string]any)
		if !ok {
			return nil, parsingErr("[%s] query malformed, no start_object after query name", name)
		}
		delete(b, "boost")
		if len(b) != 1 {
			return nil, parsingErr("[%s] query doesn't support multiple fields, found [%s]", name, firstKey(b))
		}
		field := firstKey(b)
		var vals []string
		switch x := b[field].(type) {
		case []any:
			if name == "term" {
				return nil, parsingErr("[term] query does not support array of values")
			}
			for _, e := range x {
				vals = append(vals, scalar(e))
			}
		case map[string]any:
			if name == "terms" {
				return nil, parsingErr("[terms] query does not support [%s]", field)
			}
			vals = []string{scalar(x["value"])}
		default:
			if name == "terms" {
				return nil, parsingErr("[terms] query requires an array of values for field [%s]", field)
			}
			vals = []string{scalar(x)}
		}
		return termQ{field: field, values: vals}, nil
	case "ids":
		b, ok := body.(map[string]any)
		if !ok {
			return nil, parsingErr("[ids] query malformed")
		}
		return termQ{field: "_id", values: stringList(b["values"])}, nil
	case "exists":
		b, ok := body.(map[string]any)
		if !ok {
			return nil, parsingErr("[exists] query malformed")
		}
		return existsQ{field: fmt.Sprint(b["field"])}, nil
	case "range":
		b, ok := body.(map[string]any)
		if !ok || len(b) != 1 {
			return nil, parsingErr("[range] query malformed, no start_object after query name")
		}
		field := firstKey(b)
		spec, ok := b[field].(map[string]any)
		if !ok {
			return nil, parsingErr("[range] query malformed, no start_object after query name")
		}
		rq := rangeQ{field: field}
		for k, v := range spec {
			switch k {
			case "gte", "gt", "lte", "lt", "from", "to":
				if v == nil {
					continue
				}
				t, err := h.parseDate(scalar(v))
				if err != nil {
					return nil, shardErr("parse_exception", fmt.Sprintf("failed to parse date field [%s] with format [strict_date_optional_time||epoch_millis]: [failed to parse date field [%s] with format [strict_date_optional_time||epoch_millis]]", scalar(v), scalar(v)))
				}
				switch k {
				case "gte", "from":
					rq.gte = &t
				case "gt":
					rq.gt = &t
				case "lte", "to":
					rq.lte = &t
				case "lt":
					rq.lt = &t
				}
			case "format", "time_zone", "boost", "include_lower", "include_upper", "relation":
			default:
				return nil, parsingErr("[range] query does not support [%s]", k)
			}
		}
		return rq, nil
	case "bool":
		b, ok := body.(map[string]any)
		if !ok {
			return nil, parsingErr("[bool] query malformed, no start_object after query name")
		}
		var bq boolQ
		for k, v := range b {
			var list []any
			switch x := v.(type) {
			case []any:
				list = x
			case map[string]any:
				list = []any{x}
			}
			var dst *[]qnode
			switch k {
			case "must":
				dst = &bq.must
			case "filter":
				dst = &bq.filter
			case "should":
				dst = &bq.should
			case "must_not":
				dst = &bq.mustNot
			case "minimum_should_match":
				n, err := strconv.Atoi(scalar(v))
				if err != nil {
					return nil, parsingErr("[bool] minimum_should_match [%s] is not supported by this emulator", scalar(v))
				}
				bq.minShould = n
				continue
			case "boost", "_name":
				continue
			default:
				return nil, parsingErr("[bool] query does not support [%s]", k)
			}
			for _, e := range list {
				q, err := h.parseDSL(e)
				if err != nil {
					return nil, err
				}
				*dst = append(*dst, q)
			}
		}
		return bq, nil
	case "nested":
		b, ok := body.(map[string]any)
		if !ok {
			return nil, parsingErr("[nested] query malformed")
		}
		return h.parseDSL(b["query"])
	case "constant_score":
		b, ok := body.(map[string]any)
		if !ok {
			return nil, parsingErr("[constant_score] query malformed")
		}
		return h.parseDSL(b["filter"])
	}
	return nil, parsingErr("no [query] registered for [%s]", name)
}

func wordsBool(fields, words []string, and bool) qnode {
	var bq boolQ
	for _, w := range words {
		t := textQ{fields: fields, words: []string{w}}
		if and {
			bq.must = append(bq.must, t)
		} else {
			bq.should = append(bq.should, t)
		}
	}
	if len(words) == 0 {
		return matchNoneQ{}
	}
	return bq
}

func firstKey(m map[string]any) string {
	for k := range m {
		return k
	}
	return ""
}

func scalar(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case json.Number:
		return x.String()
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func stringList(v any) []string {
	switch x := v.(type) {
	case []any:
		var out []string
		for _, e := range x {
			s := scalar(e)
			if i := strings.IndexByte(s, '^'); i >= 0 { // field boost
				s = s[:i]
			}
			out = append(out, s)
		}
		return out
	case string:
		return strings.Split(x, ",")
	}
	return nil
}

var reDateMath = regexp.MustCompile(`^now(?:([+-])(\d+)([yMwdhms]))?(?:/([yMwd]))?$`)

func (h *handler) parseDate(s string) (time.Time, error) {
	if m := reDateMath.FindStringSubmatch(s); m != nil {
		t := h.now().UTC()
		if m[1] != "" {
			n, _ := strconv.Atoi(m[2])
			if m[1] == "-" {
				n = -n
			}
			switch m[3] {
			case "y":
				t = t.AddDate(n, 0, 0)
			case "M":
				t = t.AddDate(0, n, 0)
			case "w":
				t = t.AddDate(0, 0, 7*n)
			case "d":
				t = t.AddDate(0, 0, n)
			case "h":
				t = t.Add(time.Duration(n) * time.Hour)
			case "m":
				t = t.Add(time.Duration(n) * time.Minute)
			case "s":
				t = t.Add(time.Duration(n) * time.Second)
			}
		}
		if m[4] != "" {
			t = time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		}
		return t, nil
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && len(s) > 4 {
		return time.UnixMilli(n).UTC(), nil
	}
	for _, l := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02", "2006-01", "2006"} {
		if t, err := time.Parse(l, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, fmt.Errorf("bad date %q", s)
}

// ---- Lucene query string (q=, query_string) and simple_query_string ----

type ltoken struct {
	kind  string // word, phrase, and, or, not, plus, minus, lparen, rparen
	text  string
	field string
	pfx   bool
}

func lexLucene(s string, simple bool) ([]ltoken, error) {
	var out []ltoken
	rs := []rune(s)
	i := 0
	for i < len(rs) {
		r := rs[i]
		switch {
		case r == ' ' || r == '\t' || r == '\n':
			i++
			continue
		case r == '(':
			out = append(out, ltoken{kind: "lparen"})
			i++
			continue
		case r == ')':
			out = append(out, ltoken{kind: "rparen"})
			i++
			continue
		case r == '+' && (simple || i+1 < len(rs) && rs[i+1] != ' '):
			out = append(out, ltoken{kind: "plus"})
			i++
			continue
		case r == '-' && (i+1 < len(rs) && rs[i+1] != ' '):
			out = append(out, ltoken{kind: "minus"})
			i++
			continue
		case r == '!':
			out = append(out, ltoken{kind: "not"})
			i++
			continue
		case simple && r == '|':
			out = append(out, ltoken{kind: "or"})
			i++
			continue
		case !simple && r == '|' && i+1 < len(rs) && rs[i+1] == '|':
			out = append(out, ltoken{kind: "or"})
			i += 2
			continue
		case !simple && r == '&' && i+1 < len(rs) && rs[i+1] == '&':
			out = append(out, ltoken{kind: "and"})
			i += 2
			continue
		}
		field := ""
		// field:value
		j := i
		for j < len(rs) && rs[j] != ':' && rs[j] != ' ' && rs[j] != '(' && rs[j] != ')' && rs[j] != '"' {
			j++
		}
		if !simple && j < len(rs) && rs[j] == ':' && j > i {
			field = strings.ReplaceAll(string(rs[i:j]), `\`, "")
			i = j + 1
			if i >= len(rs) {
				return nil, fmt.Errorf("Cannot parse '%s': Encountered \"<EOF>\" at line 1, column %d.", s, i)
			}
		}
		if i < len(rs) && rs[i] == '"' {
			k := i + 1
			for k < len(rs) && rs[k] != '"' {
				k++
			}
			if k >= len(rs) {
				if simple {
					out = append(out, ltoken{kind: "phrase", text: string(rs[i+1:]), field: field})
					break
				}
				return nil, fmt.Errorf("Cannot parse '%s': Lexical error at line 1, column %d.  Encountered: <EOF> after : \"%s\"", s, len(rs)+1, string(rs[i:]))
			}
			out = append(out, ltoken{kind: "phrase", text: string(rs[i+1 : k]), field: field})
			i = k + 1
			continue
		}
		if field != "" && i < len(rs) && rs[i] == '(' {
			return nil, fmt.Errorf("Cannot parse '%s': grouped field queries are not supported by this emulator", s)
		}
		k := i
		for k < len(rs) && rs[k] != ' ' && rs[k] != '(' && rs[k] != ')' && !(simple && rs[k] == '|') {
			if rs[k] == '\\' {
				k++
			}
			k++
		}
		k = min(k, len(rs))
		w := string(rs[i:k])
		i = k
		switch {
		case !simple && field == "" && w == "AND":
			out = append(out, ltoken{kind: "and"})
		case !simple && field == "" && w == "OR":
			out = append(out, ltoken{kind: "or"})
		case !simple && field == "" && w == "NOT":
			out = append(out, ltoken{kind: "not"})
		default:
			t := ltoken{kind: "word", text: w, field: field}
			if strings.HasSuffix(w, "*") && len(w) > 1 {
				t.text, t.pfx = strings.TrimSuffix(w, "*"), true
			}
			out = append(out, t)
		}
	}
	return out, nil
}

type lparser struct {
	toks   []ltoken
	i      int
	fields []string
	and    bool
	simple bool
	src    string
}

func parseLucene(s string, fields []string, and, simple bool) (qnode, error) {
	if len(fields) == 0 || (len(fields) == 1 && fields[0] == "*") {
		fields = defaultFields
	}
	toks, err := lexLucene(s, simple)
	if err != nil {
		return nil, shardErr("query_shard_exception", fmt.Sprintf("Failed to parse query [%s]", s))
	}
	p := &lparser{toks: toks, fields: fields, and: and, simple: simple, src: s}
	q, err := p.clauses(false)
	if err != nil {
		if simple {
			return matchNoneQ{}, nil
		}
		return nil, shardErr("query_shard_exception", fmt.Sprintf("Failed to parse query [%s]", s))
	}
	return q, nil
}

func (p *lparser) clauses(nested bool) (qnode, error) {
	type clause struct {
		q     qnode
		occur string // must, should, must_not
	}
	var cs []clause
	conj := ""
	for p.i < len(p.toks) {
		t := p.toks[p.i]
		if t.kind == "rparen" {
			if !nested {
				return nil, fmt.Errorf("unbalanced )")
			}
			break
		}
		if t.kind == "and" || t.kind == "or" {
			if len(cs) == 0 {
				if p.simple {
					p.i++
					continue
				}
				return nil, fmt.Errorf("leading operator")
			}
			conj = t.kind
			p.i++
			if p.i >= len(p.toks) {
				if p.simple {
					break
				}
				return nil, fmt.Errorf("trailing operator")
			}
			continue
		}
		mod := ""
		for p.i < len(p.toks) && (p.toks[p.i].kind == "plus" || p.toks[p.i].kind == "minus" || p.toks[p.i].kind == "not") {
			mod = p.toks[p.i].kind
			p.i++
		}
		if p.i >= len(p.toks) {
			if p.simple {
				break
			}
			return nil, fmt.Errorf("dangling modifier")
		}
		q, err := p.atom()
		if err != nil {
			return nil, err
		}
		occur := "should"
		if p.and {
			occur = "must"
		}
		if conj == "and" {
			occur = "must"
			if len(cs) > 0 && cs[len(cs)-1].occur == "should" {
				cs[len(cs)-1].occur = "must"
			}
		} else if conj == "or" {
			occur = "should"
			if len(cs) > 0 && cs[len(cs)-1].occur == "must" && p.and {
				cs[len(cs)-1].occur = "should"
			}
		}
		switch mod {
		case "plus":
			occur = "must"
		case "minus", "not":
			occur = "must_not"
		}
		cs = append(cs, clause{q, occur})
		conj = ""
	}
	if len(cs) == 0 {
		if p.simple {
			return matchNoneQ{}, nil
		}
		return nil, fmt.Errorf("empty")
	}
	if len(cs) == 1 && cs[0].occur != "must_not" {
		return cs[0].q, nil
	}
	var bq boolQ
	for _, c := range cs {
		switch c.occur {
		case "must":
			bq.must = append(bq.must, c.q)
		case "should":
			bq.should = append(bq.should, c.q)
		default:
			bq.mustNot = append(bq.mustNot, c.q)
		}
	}
	if len(bq.must) == 0 && len(bq.should) == 0 {
		bq.must = []qnode{matchAllQ{}}
	}
	return bq, nil
}

func (p *lparser) atom() (qnode, error) {
	t := p.toks[p.i]
	p.i++
	switch t.kind {
	case "lparen":
		q, err := p.clauses(true)
		if err != nil {
			return nil, err
		}
		if p.i >= len(p.toks) || p.toks[p.i].kind != "rparen" {
			return nil, fmt.Errorf("unbalanced (")
		}
		p.i++
		return q, nil
	case "word", "phrase":
		fields := p.fields
		if t.field != "" {
			fields = []string{t.field}
		}
		if t.kind == "word" && t.text == "*" && (t.field == "" || t.field == "*") {
			return matchAllQ{}, nil
		}
		if t.field != "" && t.field != "*" {
			if keywordFields[t.field] {
				if t.text == "*" {
					return existsQ{field: t.field}, nil
				}
				return termQ{field: t.field, values: []string{strings.ReplaceAll(t.text, `\`, "")}}, nil
			}
			if t.field == "last_discussed_at" {
				return p.rangeOrDay(t.text)
			}
		}
		words := tokens(t.text)
		if len(words) == 0 {
			return matchNoneQ{}, nil
		}
		if t.kind == "phrase" {
			return textQ{fields: fields, words: words}, nil
		}
		if len(words) == 1 {
			return textQ{fields: fields, words: words, prefix: t.pfx}, nil
		}
		// a word the analyser splits (e.g. "COVID-19") is a phrase
		return textQ{fields: fields, words: words, prefix: t.pfx}, nil
	}
	return nil, fmt.Errorf("unexpected %s", t.kind)
}

func (p *lparser) rangeOrDay(s string) (qnode, error) {
	if t, err := time.Parse("2006-01-02", s); err == nil {
		end := t.AddDate(0, 0, 1)
		return rangeQ{field: "last_discussed_at", gte: &t, lt: &end}, nil
	}
	return nil, fmt.Errorf("unsupported date query %q", s)
}

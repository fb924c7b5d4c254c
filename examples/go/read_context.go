package main

// ADR-059, agent context loading order and format: read_context(image_id) returns, in loading order, the tastes
// (_default.md plus the genre files the brief declares, with lines shared by two genres surfaced as conflicts), the
// brief, the notes (summarized past 40 lines), the last 10 log entries and the last 10 vocabulary gaps, newest
// first. Every file is read again on every call: the harness rewrites workspaces between calls.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"
	"unicode/utf8"
)

const (
	readContextSpec    = "read-context"
	readContextVersion = "ADR-059"

	notesHead       = 10
	notesTail       = 30
	notesThreshold  = notesHead + notesTail // notes of at most 40 lines come back raw
	maxSummaryBytes = 4 * maxTextBytes      // notes whose head or tail is larger than this read as empty
	recentEntries   = 10
	maxJSONLScan    = 16 << 20 // how far back from the end of a JSONL file the last entries are looked for
	maxImageID      = 255      // bytes: the longest file name Linux allows
)

type readContext struct {
	workspaceRoot string
	tastesDir     string
}

// contextResult is the response; a struct, so its keys come out in loading order (a map's would be sorted).
type contextResult struct {
	Tastes     tastes          `json:"tastes"`
	Brief      brief           `json:"brief"`
	Notes      notes           `json:"notes"`
	RecentLog  []logEntry      `json:"recent_log"`
	RecentGaps []orderedObject `json:"recent_gaps"`
}

type tastes struct {
	Default   string            `json:"default"`
	Genres    map[string]string `json:"genres"`
	Conflicts []conflict        `json:"conflicts"`
}

type conflict struct {
	Point string   `json:"point"`
	Files []string `json:"files"`
}

type brief struct {
	Raw    string   `json:"raw"`
	Intent string   `json:"intent"`
	Tastes []string `json:"tastes"`
}

type notes struct {
	Summary   string `json:"summary"`
	Truncated bool   `json:"truncated"`
}

type logEntry struct {
	Timestamp json.RawMessage `json:"timestamp"`
	Op        json.RawMessage `json:"op"`
	Details   object          `json:"details"`
}

func (rc *readContext) call(op string, args json.RawMessage) (any, error) {
	if op != "read_context" {
		return nil, refuse("UNKNOWN_OP", "read-context has no operation %q", op)
	}
	obj, ok := objectOf(args)
	if !ok || len(obj) != 1 {
		return nil, refuse("INVALID_REQUEST", "read_context takes exactly one argument, image_id")
	}
	imageID, err := obj.text("image_id")
	if errors.Is(err, errLoneSurrogate) {
		return nil, refuse("invalid_image_id", "image_id %v: no folder has such a name", err)
	}
	if err != nil {
		return nil, refuse("INVALID_REQUEST", "read_context takes exactly one argument, image_id, a string")
	}
	workspace, err := rc.workspace(imageID)
	if err != nil {
		return nil, err
	}

	b := parseBrief(readText(fileInside(workspace, "brief.md")))
	return &contextResult{
		Tastes:     rc.tastes(b.Tastes),
		Brief:      b,
		Notes:      summarizeNotes(fileInside(workspace, "notes.md")),
		RecentLog:  recentLog(fileInside(workspace, "log.jsonl")),
		RecentGaps: recentGaps(fileInside(workspace, "vocabulary_gaps.jsonl")),
	}, nil
}

// workspace returns the image's folder under the workspace root. An id is a folder name, never a path: one that
// could name anything else (separators, "." and "..", control characters, a symlink out of the root) is refused
// with invalid_image_id, and an id naming no folder gets not_found (the origin's code; the ADR defines none).
func (rc *readContext) workspace(imageID string) (string, error) {
	if imageID == "" || len(imageID) > maxImageID || imageID == "." || imageID == ".." ||
		strings.ContainsAny(imageID, `/\`) || strings.IndexFunc(imageID, isControl) >= 0 {
		return "", refuse("invalid_image_id", "image_id must be a plain folder name of at most %d bytes: no separators, control characters, '.' or '..'", maxImageID)
	}
	dir, err := resolveInside(rc.workspaceRoot, imageID)
	if errors.Is(err, errOutside) {
		return "", refuse("invalid_image_id", "image %q points outside the workspace root; nothing was read", imageID)
	}
	if err == nil && isDir(dir) {
		return dir, nil
	}
	return "", refuse("not_found", "no workspace for image %q under the workspace root", imageID)
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

func isDir(path string) bool {
	info, err := os.Stat(path)
	return err == nil && info.IsDir()
}

// --- tastes -----------------------------------------------------------------------------------------------------

// tastes loads _default.md and each declared genre's file from the global tastes folder. A genre whose file is
// missing or empty is left out of genres (it stays listed in brief.tastes).
func (rc *readContext) tastes(declared []string) tastes {
	t := tastes{
		Default:   readText(fileInside(rc.tastesDir, "_default.md")),
		Genres:    map[string]string{},
		Conflicts: []conflict{},
	}
	var loaded []string
	budget := maxTextBytes // shared by all genres: a brief declaring many large genres must not multiply the cap
	for _, genre := range declared {
		if !validGenre(genre) {
			continue
		}
		text := readText(fileInside(rc.tastesDir, genre+".md"))
		if text == "" || len(text) > budget {
			continue
		}
		t.Genres[genre] = text
		loaded = append(loaded, genre)
		budget -= len(text)
	}
	t.Conflicts = findConflicts(loaded, t.Genres)
	return t
}

// validGenre reports whether a declared genre can name a file in the tastes folder: at most 100 characters, no
// separators or control characters, not starting with "." and holding no "..".
func validGenre(genre string) bool {
	return genre != "" && utf8.RuneCountInString(genre) <= 100 && genre[0] != '.' && !strings.Contains(genre, "..") &&
		!strings.ContainsAny(genre, `/\`) && strings.IndexFunc(genre, isControl) < 0
}

// findConflicts returns each line found in two or more of the genres' texts, with those genres in declaration
// order. Lines are compared with surrounding whitespace removed; blank lines and comments (markdown headings and
// one-line HTML comments) never conflict, and a line repeated within one file counts once.
func findConflicts(genres []string, texts map[string]string) []conflict {
	holders := map[string][]string{}
	var points []string // in the order first seen
	for _, genre := range genres {
		seen := map[string]bool{}
		for _, line := range strings.Split(texts[genre], "\n") {
			point := strings.TrimSpace(line)
			if point == "" || isComment(point) || seen[point] {
				continue
			}
			seen[point] = true
			if _, ok := holders[point]; !ok {
				points = append(points, point)
			}
			holders[point] = append(holders[point], genre)
		}
	}
	found := []conflict{}
	for _, point := range points {
		if len(holders[point]) > 1 {
			found = append(found, conflict{Point: point, Files: holders[point]})
		}
	}
	return found
}

func isComment(line string) bool {
	return strings.HasPrefix(line, "#") || strings.HasPrefix(line, "<!--") && strings.HasSuffix(line, "-->")
}

// --- the brief --------------------------------------------------------------------------------------------------

// parseBrief splits a brief into the genres its Tastes: lines declare and the intent, everything else. Several
// declaration lines accumulate, each genre once.
func parseBrief(raw string) brief {
	b := brief{Raw: raw, Tastes: []string{}}
	var intent strings.Builder
	for _, line := range strings.SplitAfter(raw, "\n") {
		names, ok := tastesDeclaration(line)
		if !ok {
			intent.WriteString(line)
			continue
		}
		for _, name := range names {
			if !contains(b.Tastes, name) {
				b.Tastes = append(b.Tastes, name)
			}
		}
	}
	b.Intent = strings.TrimSpace(strings.ReplaceAll(intent.String(), "\r\n", "\n"))
	return b
}

// tastesDeclaration reads a "Tastes: a, b" line, as the origin does: "tastes" in any letter case at the start of
// the line (after blanks), a colon, then comma-separated names, the list optionally in [...] and each name
// optionally quoted.
func tastesDeclaration(line string) ([]string, bool) {
	rest := strings.TrimLeftFunc(line, unicode.IsSpace)
	if len(rest) < len("tastes") || !strings.EqualFold(rest[:len("tastes")], "tastes") {
		return nil, false
	}
	rest = strings.TrimLeftFunc(rest[len("tastes"):], func(r rune) bool { return r != '\n' && unicode.IsSpace(r) })
	if !strings.HasPrefix(rest, ":") {
		return nil, false
	}
	list := strings.TrimSpace(rest[1:])
	if len(list) >= 2 && list[0] == '[' && list[len(list)-1] == ']' {
		list = list[1 : len(list)-1]
	}
	names := []string{}
	for _, item := range strings.Split(list, ",") {
		if name := strings.TrimSpace(strings.Trim(strings.TrimSpace(item), "\"'`")); name != "" {
			names = append(names, name)
		}
	}
	return names, true
}

// --- notes ------------------------------------------------------------------------------------------------------

// summarizeNotes returns notes of at most 40 lines raw; longer ones as their first 10 lines, the elision marker and
// their last 30 lines. A line ends at "\n" (with a "\r" before it) and a final break does not start another line.
// A missing, unreadable or non-UTF-8 file, or one whose head or tail is beyond the size bound, reads as empty.
func summarizeNotes(path string) notes {
	f, size, ok := openRegular(path)
	if !ok {
		return notes{}
	}
	defer f.Close()

	// Read up to 41 lines: at most 40 means the file is short and comes back whole.
	r := bufio.NewReader(io.LimitReader(f, maxSummaryBytes+1))
	var whole []byte
	var head []string
	for len(head) <= notesThreshold {
		line, err := r.ReadBytes('\n')
		whole = append(whole, line...)
		if len(line) > 0 {
			head = append(head, string(trimBreak(line)))
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return notes{}
		}
	}
	if len(whole) > maxSummaryBytes {
		return notes{}
	}
	if len(head) <= notesThreshold {
		if !utf8.Valid(whole) {
			return notes{}
		}
		return notes{Summary: string(whole)}
	}

	total, err := countLines(f, size)
	if err != nil {
		return notes{}
	}
	// The tail is read back from the end, whatever lies between: a notes file that grows costs head + tail.
	end := size
	if last := make([]byte, 1); size > 0 {
		if _, err := f.ReadAt(last, size-1); err == nil && last[0] == '\n' {
			end = size - 1 // the final break ends the last line; it does not start another
		}
	}
	tail := make([]string, 0, notesTail)
	err = linesFromEnd(f, end, maxSummaryBytes, func(line []byte) bool {
		tail = append(tail, string(line))
		return len(tail) < notesTail
	})
	if err != nil || len(tail) < notesTail {
		return notes{}
	}
	for i, j := 0, len(tail)-1; i < j; i, j = i+1, j-1 {
		tail[i], tail[j] = tail[j], tail[i]
	}
	summary := strings.Join(head[:notesHead], "\n") +
		fmt.Sprintf("\n\n... [%d lines elided] ...\n\n", total-notesThreshold) +
		strings.Join(tail, "\n")
	if !utf8.ValidString(summary) {
		return notes{}
	}
	return notes{Summary: summary, Truncated: true}
}

// --- recent log and gaps ----------------------------------------------------------------------------------------

// lastObjects returns the last 10 lines of a JSON-lines file that are JSON objects, newest first. Blank lines,
// malformed lines, lines that are not objects and lines that are not UTF-8 are skipped; an unreadable file gives [].
// Values stay raw JSON, so 2**64 or a "\ud800" escape comes back exactly as the line holds it.
func lastObjects(path string) []object {
	found := []object{}
	f, size, ok := openRegular(path)
	if !ok {
		return found
	}
	defer f.Close()
	err := linesFromEnd(f, size, maxJSONLScan, func(line []byte) bool {
		if !utf8.Valid(line) {
			return true
		}
		if obj, ok := objectOf(line); ok {
			found = append(found, obj)
		}
		return len(found) < recentEntries
	})
	if err != nil {
		return []object{}
	}
	return found
}

// recentLog shapes each log line as {timestamp, op, details}: details holds every other key of the line, and a
// timestamp or op that is missing or not a string is "".
func recentLog(path string) []logEntry {
	entries := []logEntry{}
	for _, line := range lastObjects(path) {
		details := object{}
		for name, value := range line {
			if name != "timestamp" && name != "op" {
				details[name] = value
			}
		}
		entries = append(entries, logEntry{
			Timestamp: orDefault(line["timestamp"], isString, `""`),
			Op:        orDefault(line["op"], isString, `""`),
			Details:   details,
		})
	}
	return entries
}

// gapFields is the ADR's gap record, in its order: each field with its default and the values that fit it. A field
// that is missing or does not fit gets the default; keys outside the record are not passed through.
var gapFields = []struct {
	name string
	def  string // JSON
	fits func(json.RawMessage) bool
}{
	{"timestamp", "null", isStringOrNull},
	{"image_id", "null", isStringOrNull},
	{"description", `""`, isString},
	{"session_id", "null", isStringOrNull},
	{"snapshot_hash", "null", isStringOrNull},
	{"intent", "null", isStringOrNull},
	{"intent_category", `"uncategorized"`, isString},
	{"missing_capability", "null", isStringOrNull},
	{"operations_involved", "[]", isStringList},
	{"vocabulary_used", "[]", isStringList},
	{"satisfaction", "null", isSatisfaction},
	{"notes", `""`, isString},
}

func recentGaps(path string) []orderedObject {
	gaps := []orderedObject{}
	for _, line := range lastObjects(path) {
		gap := make(orderedObject, 0, len(gapFields))
		for _, field := range gapFields {
			gap = append(gap, member{field.name, orDefault(line[field.name], field.fits, field.def)})
		}
		gaps = append(gaps, gap)
	}
	return gaps
}

// orDefault returns raw when it is present and fits, else the JSON text def.
func orDefault(raw json.RawMessage, fits func(json.RawMessage) bool, def string) json.RawMessage {
	if raw != nil && fits(raw) {
		return raw
	}
	return json.RawMessage(def)
}

func isString(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) > 0 && raw[0] == '"'
}

func isStringOrNull(raw json.RawMessage) bool {
	return isString(raw) || string(bytes.TrimSpace(raw)) == "null"
}

func isStringList(raw json.RawMessage) bool {
	var items []json.RawMessage
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || trimmed[0] != '[' || json.Unmarshal(trimmed, &items) != nil {
		return false
	}
	for _, item := range items {
		if !isString(item) {
			return false
		}
	}
	return true
}

// isSatisfaction accepts -1, 0, 1 and null; 1.0 and true are not the integer 1.
func isSatisfaction(raw json.RawMessage) bool {
	switch string(bytes.TrimSpace(raw)) {
	case "-1", "0", "1", "null":
		return true
	}
	return false
}

// orderedObject is a JSON object whose members keep the order given (a Go map's would be sorted).
type orderedObject []member

type member struct {
	name  string
	value json.RawMessage
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			buf.WriteByte(',')
		}
		name, err := json.Marshal(m.name)
		if err != nil {
			return nil, err
		}
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(m.value)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeTemp(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func numberedLines(n int, ending string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d%s", i, ending)
	}
	return b.String()
}

func TestNotesUpTo40LinesComeBackRaw(t *testing.T) {
	for _, text := range []string{"", "one", numberedLines(40, "\n"), numberedLines(40, "\r\n")} {
		got := summarizeNotes(writeTemp(t, text))
		if got != (notes{Summary: text}) {
			t.Errorf("notes of %d bytes: got %+v", len(text), got)
		}
	}
}

func TestLongNotesAreHeadMarkerTail(t *testing.T) {
	for _, ending := range []string{"\n", "\r\n"} {
		got := summarizeNotes(writeTemp(t, numberedLines(41, ending)))
		want := strings.TrimSuffix(numberedLines(10, "\n"), "\n") + "\n\n... [1 lines elided] ...\n\n" +
			strings.TrimSuffix(strings.ReplaceAll(numberedLines(41, "\n"), numberedLines(11, "\n"), ""), "\n")
		if got != (notes{Summary: want, Truncated: true}) {
			t.Errorf("41 lines ending %q: got %q", ending, got.Summary)
		}
	}
}

func TestLinesFromEndAcrossBlocks(t *testing.T) {
	long := strings.Repeat("x", 3*blockSize)
	path := writeTemp(t, "first\n"+long+"\nlast\n")
	f, size, ok := openRegular(path)
	if !ok {
		t.Fatal("cannot open the file")
	}
	defer f.Close()
	var got []string
	if err := linesFromEnd(f, size, maxJSONLScan, func(line []byte) bool {
		got = append(got, string(line))
		return true
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{"", "last", long, "first"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %d lines, want %d: %.40q", len(got), len(want), got)
	}
}

func TestParseBrief(t *testing.T) {
	got := parseBrief("# Manta\r\nTastes: [underwater, 'wildlife']\r\nMoody.\ntastes: street,underwater\n")
	want := brief{
		Raw:    "# Manta\r\nTastes: [underwater, 'wildlife']\r\nMoody.\ntastes: street,underwater\n",
		Intent: "# Manta\nMoody.",
		Tastes: []string{"underwater", "wildlife", "street"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestConflictsIgnoreBlanksCommentsAndRepeats(t *testing.T) {
	texts := map[string]string{
		"a": "# Palette\nwarm tones\nwarm tones\n\n<!-- keep -->\n",
		"b": "  warm tones  \n# Palette\n\n<!-- keep -->\ncool\n",
	}
	got := findConflicts([]string{"a", "b"}, texts)
	if want := []conflict{{Point: "warm tones", Files: []string{"a", "b"}}}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

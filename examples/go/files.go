package main

// Reading the files of a read-context workspace tolerantly and within bounds: a missing, unreadable, oversized or
// non-UTF-8 file reads as empty, a FIFO or a device is never opened for reading, a symlink out of its folder is
// never followed, and a huge log costs only the lines wanted.

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"
)

const (
	maxTextBytes = 16 << 20 // a markdown file larger than this reads as empty: such files are hand-written
	blockSize    = 64 << 10 // how much linesFromEnd reads at a time
)

var errOutside = errors.New("leads outside its folder")

// resolveInside returns where dir/name leads with every symlink followed; errOutside when that is not inside dir
// (itself resolved), or the error of a path that leads nowhere.
func resolveInside(dir, name string) (string, error) {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", err
	}
	path, err := filepath.EvalSymlinks(filepath.Join(root, name))
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", errOutside
	}
	return path, nil
}

// fileInside is resolveInside for a file that is simply missing when it cannot be read from inside dir: "".
func fileInside(dir, name string) string {
	path, err := resolveInside(dir, name)
	if err != nil {
		return ""
	}
	return path
}

// openRegular opens path for reading when it is a regular file; ok is false for anything else. O_NONBLOCK keeps
// open() from waiting for a writer when the path is a FIFO, and the type is checked on the open descriptor, so a
// file swapped in between a check and the open cannot fool it.
func openRegular(path string) (f *os.File, size int64, ok bool) {
	if path == "" {
		return nil, 0, false
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
	if err != nil {
		return nil, 0, false
	}
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() {
		f.Close()
		return nil, 0, false
	}
	return f, info.Size(), true
}

// readText returns a small file's text: "" when it is missing, not a regular file, larger than maxTextBytes,
// unreadable or not valid UTF-8 (such a file counts as unreadable rather than being patched with U+FFFD).
func readText(path string) string {
	f, _, ok := openRegular(path)
	if !ok {
		return ""
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxTextBytes+1))
	if err != nil || len(data) > maxTextBytes || !utf8.Valid(data) {
		return ""
	}
	return string(data)
}

// trimBreak removes a line's "\n" and a "\r" before it: "\r\n" is one line break.
func trimBreak(line []byte) []byte {
	line = bytes.TrimSuffix(line, []byte("\n"))
	return bytes.TrimSuffix(line, []byte("\r"))
}

// linesFromEnd calls yield with each complete line of the file's first `end` bytes, the last line first, its break
// removed, until yield returns false. It reads backwards block by block, so the cost is that of the lines wanted,
// not of the file, and gives up after maxScan bytes: a line longer than that is never read whole. The lines passed
// to yield are only valid during the call.
func linesFromEnd(f *os.File, end, maxScan int64, yield func(line []byte) bool) error {
	pos := end
	var partial []byte // the end of a line whose start lies further back
	for pos > 0 && end-pos < maxScan {
		// Read at least as much as the partial line holds, so a long line is not copied block after block.
		step := int64(blockSize)
		if n := int64(len(partial)); n > step {
			step = n
		}
		if step > pos {
			step = pos
		}
		pos -= step
		buf := make([]byte, step, step+int64(len(partial)))
		if _, err := f.ReadAt(buf, pos); err != nil {
			return err
		}
		buf = append(buf, partial...)
		// Every "\n" in buf ends a complete line: hand those over, last first, and keep what precedes the first.
		for {
			i := bytes.LastIndexByte(buf, '\n')
			if i < 0 {
				break
			}
			if !yield(trimBreak(buf[i+1:])) {
				return nil
			}
			buf = buf[:i]
		}
		partial = buf
	}
	if pos == 0 {
		yield(trimBreak(partial)) // the file's first line
	}
	return nil
}

// countLines counts the lines of the file's first size bytes: its "\n"s, plus a last line without one.
func countLines(f *os.File, size int64) (int64, error) {
	buf := make([]byte, 1<<20)
	var lines int64
	var last byte
	for off := int64(0); off < size; {
		n := int64(len(buf))
		if size-off < n {
			n = size - off
		}
		if _, err := f.ReadAt(buf[:n], off); err != nil {
			return 0, err
		}
		lines += int64(bytes.Count(buf[:n], []byte("\n")))
		last = buf[n-1]
		off += n
	}
	if size > 0 && last != '\n' {
		lines++
	}
	return lines, nil
}

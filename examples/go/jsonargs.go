package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"sort"
	"strconv"
)

// Arguments arrive as raw JSON and are decoded one field at a time, by hand, for three reasons:
//
//   - the suites send every wrong type on purpose (null, numbers, lists, 2**64, lists nested 500 deep), and each must
//     get a refusal, never a crash or a silent conversion;
//   - encoding/json matches struct fields case-insensitively, so a struct would take {"Action": "write"} as an
//     action; a map of raw members matches names exactly;
//   - encoding/json turns a lone UTF-16 surrogate escape ("\ud800") into U+FFFD without an error, which would store
//     a different text than the one sent. Such a string holds no Unicode text at all, so it is refused instead.

// object is a JSON object whose members are still raw JSON.
type object map[string]json.RawMessage

var (
	errNotText       = errors.New("not a string")
	errLoneSurrogate = errors.New("holds an unpaired UTF-16 surrogate escape (\\ud800-\\udfff)")
)

// objectOf decodes raw as a JSON object; ok is false for any other JSON value (null included) or for no value.
func objectOf(raw json.RawMessage) (obj object, ok bool) {
	trimmed := bytes.TrimLeft(raw, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return nil, false
	}
	if err := json.Unmarshal(trimmed, &obj); err != nil {
		return nil, false
	}
	return obj, true
}

// text decodes member name as a string: errNotText when it is absent or not a JSON string, errLoneSurrogate when
// the string escapes half of a surrogate pair.
func (o object) text(name string) (string, error) {
	raw, ok := o[name]
	if !ok {
		return "", errNotText
	}
	return decodeText(raw)
}

// decodeText decodes a raw JSON string; see object.text.
func decodeText(raw json.RawMessage) (string, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '"' {
		return "", errNotText
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", errNotText
	}
	if hasLoneSurrogate(raw) {
		return "", errLoneSurrogate
	}
	return s, nil
}

// hasLoneSurrogate reports whether a JSON string literal holds a \uD800-\uDFFF escape that is not the high half of
// a high-low pair followed by its low half. Escapes are read left to right, so "\\ud800" (an escaped backslash
// followed by the letters ud800) is not mistaken for one.
func hasLoneSurrogate(literal []byte) bool {
	for i := 0; i < len(literal); i++ {
		if literal[i] != '\\' || i+1 >= len(literal) {
			continue
		}
		if literal[i+1] != 'u' {
			i++ // skip the escaped character
			continue
		}
		r, ok := hex4(literal, i+2)
		if !ok {
			return false // not valid JSON; json.Unmarshal has refused it already
		}
		switch {
		case r >= 0xDC00 && r <= 0xDFFF:
			return true // a low half with no high half before it
		case r >= 0xD800 && r <= 0xDBFF:
			if i+11 < len(literal) && literal[i+6] == '\\' && literal[i+7] == 'u' {
				if low, ok := hex4(literal, i+8); ok && low >= 0xDC00 && low <= 0xDFFF {
					i += 11 // the whole pair
					continue
				}
			}
			return true // a high half with no low half after it
		}
		i += 5
	}
	return false
}

// hex4 reads the four hex digits at s[at:at+4].
func hex4(s []byte, at int) (rune, bool) {
	if at+4 > len(s) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(s[at:at+4]), 16, 16)
	return rune(v), err == nil
}

// has reports whether member name is present and not null (null reads as absent, as an optional field's default).
func (o object) has(name string) bool {
	raw, ok := o[name]
	return ok && !bytes.Equal(bytes.TrimSpace(raw), []byte("null"))
}

// array decodes member name as a JSON array of raw items.
func (o object) array(name string) ([]json.RawMessage, bool) {
	raw := bytes.TrimSpace(o[name])
	if len(raw) == 0 || raw[0] != '[' {
		return nil, false
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, false
	}
	return items, true
}

// positiveInt decodes a raw JSON integer above zero; 1.0, 1e2, "1" and true are not integers.
func positiveInt(raw json.RawMessage) (int, bool) {
	n, err := strconv.Atoi(string(bytes.TrimSpace(raw)))
	return n, err == nil && n > 0
}

// names lists the members' names in order, so that messages about them do not change from run to run.
func (o object) names() []string {
	names := make([]string, 0, len(o))
	for name := range o {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

package main

import (
	"encoding/json"
	"testing"
)

func TestDecodeText(t *testing.T) {
	cases := []struct {
		raw  string
		want string
		err  error
	}{
		{`"plain"`, "plain", nil},
		{`"\ud83d\ude00"`, "\U0001F600", nil}, // a whole surrogate pair is one character
		{`"a\\ud800"`, `a\ud800`, nil},        // an escaped backslash, then letters
		{`"\ud800"`, "", errLoneSurrogate},
		{`"a\udfffb"`, "", errLoneSurrogate},
		{`"\ud800\u0041"`, "", errLoneSurrogate}, // a high half followed by something else
		{`"\ude00\ud83d"`, "", errLoneSurrogate}, // the halves in the wrong order
		{`null`, "", errNotText},
		{`7`, "", errNotText},
		{`["x"]`, "", errNotText},
	}
	for _, c := range cases {
		got, err := decodeText(json.RawMessage(c.raw))
		if got != c.want || err != c.err {
			t.Errorf("decodeText(%s) = %q, %v; want %q, %v", c.raw, got, err, c.want, c.err)
		}
	}
}

func TestObjectOfMatchesNamesExactly(t *testing.T) {
	obj, ok := objectOf(json.RawMessage(`{"Action": "write"}`))
	if !ok {
		t.Fatal("an object was not decoded")
	}
	if _, err := obj.text("action"); err == nil {
		t.Error(`"Action" was taken for "action"`)
	}
	for _, raw := range []string{`null`, `[]`, `"{}"`, ``} {
		if _, ok := objectOf(json.RawMessage(raw)); ok {
			t.Errorf("objectOf(%s) took it for an object", raw)
		}
	}
}

func TestTokensCountRunes(t *testing.T) {
	cases := map[string]int{"": 0, "a": 1, "abcd": 1, "abcde": 2, "éééé": 1, "🎉🎉🎉🎉🎉": 2}
	for value, want := range cases {
		if got := tokens(value); got != want {
			t.Errorf("tokens(%q) = %d, want %d", value, got, want)
		}
	}
}

package main

// Shared Context 0.1.0-draft: per-session key-value working memory, the shared_context tool (list_keys, read, write,
// delete, and the extensions read_batch, read_history, snapshot/read_snapshot) plus the session lifecycle
// operations create_session, archive_session and delete_session.
//
// Each session lives in memory and in one JSON file of its own, rewritten atomically before any change is answered
// (spec 8.1: "an in-memory Python dict serialized to disk per session is fine"). Only this process writes the files,
// so the spec declares the feature single_instance: the kit never starts a second instance on the same state.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log"
	"os"
	"path/filepath"
	"sort"
	"time"
	"unicode/utf8"
)

const (
	sharedContextSpec    = "shared-context"
	sharedContextVersion = "0.1.0-draft"

	maxValueTokens = 1000   // 4.1
	warnTokens     = 800    // 4.1: "may return a warning at 800 tokens"
	maxStoreTokens = 10_000 // 4.2
	maxKeyLength   = 64     // 4.3
	maxSessionID   = 256    // not in the spec: a bound on what one file records
	historyDepth   = 10     // 7.3: "consider retaining only last N versions"
	maxBatchKeys   = 100    // 7.4: not in the spec
)

// sharedContextFeatures are the optional features this implementation declares.
var sharedContextFeatures = []string{"write_warning", "read_batch", "read_history", "snapshot", "single_instance"}

// tokens is the spec's approximate count (8.2), len(value) / 4 rounded up, where len counts Unicode code points
// (runes), not UTF-8 bytes: "é" is one character and four of them are one token. The empty value is 0 tokens.
func tokens(value string) int {
	return (utf8.RuneCountInString(value) + 3) / 4
}

// validKey reports whether key follows 4.3: [a-z0-9_]+, at most 64 characters. ASCII only: unicode.IsLetter
// would let other scripts' letters in.
func validKey(key string) bool {
	if key == "" || len(key) > maxKeyLength {
		return false
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// entry is one version of a key's value with its metadata (2.3); the key itself is the map key that holds it.
type entry struct {
	Value     string `json:"value"`
	WrittenBy string `json:"written_by"`
	WrittenAt string `json:"written_at"`
	Version   int    `json:"version"`
}

// session is what one session file holds.
type session struct {
	ID       string `json:"session_id"`
	Archived bool   `json:"archived"`
	// Keys holds each live key's retained versions, oldest first; the last one is the current entry. A delete
	// removes the key with its history, so a key written again starts at version 1 (3.3).
	Keys      map[string][]entry  `json:"keys"`
	Snapshots map[string]snapshot `json:"snapshots"`
}

type snapshot struct {
	TakenAt string           `json:"taken_at"`
	Entries map[string]entry `json:"entries"`
}

func (s *session) current(key string) (entry, bool) {
	versions := s.Keys[key]
	if len(versions) == 0 {
		return entry{}, false
	}
	return versions[len(versions)-1], true
}

// totalTokens is the store's total, the sum of the current values' counts (4.2, 8.2).
func (s *session) totalTokens() int {
	total := 0
	for key := range s.Keys {
		e, _ := s.current(key)
		total += tokens(e.Value)
	}
	return total
}

// sortedKeys lists the live keys in a stable order.
func (s *session) sortedKeys() []string {
	keys := make([]string, 0, len(s.Keys))
	for key := range s.Keys {
		keys = append(keys, key)
	}
	sort.Strings(keys)
	return keys
}

// sharedContext keeps the sessions of one state folder: a session file is read on first use and kept in memory.
type sharedContext struct {
	dir      string
	sessions map[string]*session
}

func openSharedContext(dir string) (*sharedContext, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	return &sharedContext{dir: dir, sessions: map[string]*session{}}, nil
}

// path names a session's file by a hash of its id: an id is any text ("../x", "a/b", "CON", a NUL), never a path.
func (sc *sharedContext) path(id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(sc.dir, hex.EncodeToString(sum[:])+".json")
}

// load returns the session, or nil when it does not exist (never created, or deleted).
func (sc *sharedContext) load(id string) (*session, error) {
	if s, ok := sc.sessions[id]; ok {
		return s, nil
	}
	data, err := os.ReadFile(sc.path(id))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var s session
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("session file %s is corrupt: %w", sc.path(id), err)
	}
	if s.ID != id { // two ids whose hashes collide: as likely as never, but never read another session's data
		return nil, fmt.Errorf("session file %s belongs to another session", sc.path(id))
	}
	if s.Keys == nil {
		s.Keys = map[string][]entry{}
	}
	if s.Snapshots == nil {
		s.Snapshots = map[string]snapshot{}
	}
	sc.sessions[id] = &s
	return &s, nil
}

// save makes a session's current state durable before the change is answered. When it fails, the copy in memory
// (which holds the unsaved change) is dropped, so the next call sees the last state that reached the disk.
func (sc *sharedContext) save(s *session) error {
	data, err := json.Marshal(s)
	if err == nil {
		err = writeFileAtomic(sc.path(s.ID), data)
	}
	if err != nil {
		delete(sc.sessions, s.ID)
		return fmt.Errorf("cannot save session %q: %w", s.ID, err)
	}
	sc.sessions[s.ID] = s
	return nil
}

// writeFileAtomic replaces path with data so that a crash leaves either the old file or the new one, whole: write
// a temporary file beside it, fsync it, rename it over path, then fsync the folder so the rename itself is durable.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return err
	}
	return syncDir(filepath.Dir(path))
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

func utcNow() string {
	return time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
}

// call routes one operation: the agent-facing tool, or a lifecycle operation of the system (8.4).
func (sc *sharedContext) call(op string, args, context json.RawMessage) (any, error) {
	switch op {
	case "shared_context":
		ctx, _ := objectOf(context) // a missing context has no session: SESSION_NOT_FOUND below
		return sc.tool(args, ctx)
	case "create_session":
		return sc.createSession(args)
	case "archive_session":
		return sc.archiveSession(args)
	case "delete_session":
		return sc.deleteSession(args)
	}
	return nil, refuse("UNKNOWN_OP", "shared-context has no operation %q", op)
}

// --- session lifecycle (8.4) -----------------------------------------------------------------------------------

// lifecycleArgs checks the arguments of a lifecycle operation and returns the session id.
func lifecycleArgs(args json.RawMessage, allowed ...string) (string, error) {
	obj, ok := objectOf(args)
	if !ok {
		return "", refuse("INVALID_REQUEST", "the arguments must be an object {session_id}")
	}
	for _, name := range obj.names() {
		if name != "session_id" && !contains(allowed, name) {
			return "", refuse("INVALID_REQUEST", "unexpected field %q", name)
		}
	}
	id, err := obj.text("session_id")
	if err != nil || id == "" || utf8.RuneCountInString(id) > maxSessionID {
		return "", refuse("INVALID_REQUEST", "session_id must be a non-empty string of at most %d characters of Unicode text", maxSessionID)
	}
	return id, nil
}

func (sc *sharedContext) createSession(args json.RawMessage) (any, error) {
	id, err := lifecycleArgs(args, "config")
	if err != nil {
		return nil, err
	}
	if obj, _ := objectOf(args); obj.has("config") {
		if _, ok := objectOf(obj["config"]); !ok {
			return nil, refuse("INVALID_REQUEST", "config must be an object when given")
		}
	}
	existing, err := sc.load(id)
	if err != nil {
		return nil, err
	}
	if existing != nil { // 2.1: a session_id names one session; creating it again must never wipe it
		return nil, refuse("SESSION_EXISTS", "session %q already exists; choose another session_id", id)
	}
	s := &session{ID: id, Keys: map[string][]entry{}, Snapshots: map[string]snapshot{}}
	if err := sc.save(s); err != nil {
		return nil, err
	}
	return map[string]any{"session_id": id, "state": "active"}, nil
}

func (sc *sharedContext) archiveSession(args json.RawMessage) (any, error) {
	s, err := sc.existing(args)
	if err != nil {
		return nil, err
	}
	s.Archived = true // read-only, retained for audit: reads still answer
	if err := sc.save(s); err != nil {
		return nil, err
	}
	return map[string]any{"session_id": s.ID, "state": "archived"}, nil
}

func (sc *sharedContext) deleteSession(args json.RawMessage) (any, error) {
	s, err := sc.existing(args)
	if err != nil {
		return nil, err
	}
	delete(sc.sessions, s.ID)
	if err := os.Remove(sc.path(s.ID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err := syncDir(sc.dir); err != nil { // the removal must survive a crash too
		return nil, err
	}
	return map[string]any{"session_id": s.ID, "deleted": true}, nil
}

// existing returns the session a lifecycle call names.
func (sc *sharedContext) existing(args json.RawMessage) (*session, error) {
	id, err := lifecycleArgs(args)
	if err != nil {
		return nil, err
	}
	s, err := sc.load(id)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, refuse("SESSION_NOT_FOUND", "no session %q; it was never created or has been deleted", id)
	}
	return s, nil
}

// --- the shared_context tool (3, 7) ----------------------------------------------------------------------------

// actionFields lists, per action, the fields it requires and the ones it may take besides "action".
var actionFields = map[string]struct{ required, optional []string }{
	"list_keys":     {},
	"read":          {required: []string{"key"}},
	"write":         {required: []string{"key", "value"}},
	"delete":        {required: []string{"key"}},
	"read_batch":    {required: []string{"keys"}},
	"read_history":  {required: []string{"key"}, optional: []string{"versions"}},
	"snapshot":      {required: []string{"label"}},
	"read_snapshot": {required: []string{"label"}},
}

// tool carries out one shared_context call for the participant and session the system names in ctx (never the
// request body: a written_by or session_id there is an unexpected field, refused).
func (sc *sharedContext) tool(args json.RawMessage, ctx object) (any, error) {
	req, ok := objectOf(args)
	if !ok {
		return nil, refuse("INVALID_REQUEST", "the request must be a JSON object with an action")
	}
	action, err := req.text("action")
	fields, known := actionFields[action]
	if err != nil || !known {
		// The lifecycle operations are not tool actions either (8.4).
		return nil, refuse("INVALID_ACTION", "unknown action; use list_keys, read, write, delete, read_batch, read_history, snapshot or read_snapshot")
	}
	for _, name := range req.names() {
		if name != "action" && !contains(fields.required, name) && !contains(fields.optional, name) {
			return nil, refuse("INVALID_REQUEST", "%s takes no field %q", action, name)
		}
	}
	for _, name := range fields.required { // "key" comes first: a missing key is INVALID_KEY
		if _, ok := req[name]; !ok && name == "key" {
			return nil, refuse("INVALID_KEY", "%s needs a key", action)
		} else if !ok {
			return nil, refuse("INVALID_REQUEST", "%s needs the field %q", action, name)
		}
	}

	id, err := ctx.text("session_id")
	if err != nil || id == "" || utf8.RuneCountInString(id) > maxSessionID {
		return nil, refuse("SESSION_NOT_FOUND", "the call names no valid session")
	}
	s, err := sc.load(id)
	if err != nil {
		return nil, err
	}
	if s == nil {
		return nil, refuse("SESSION_NOT_FOUND", "no session %q; it was never created or has been deleted", id)
	}

	switch action {
	case "list_keys":
		return listKeys(s), nil
	case "read":
		return readKey(s, req)
	case "write":
		return sc.writeKey(s, req, ctx)
	case "delete":
		return sc.deleteKey(s, req, ctx)
	case "read_batch":
		return readBatch(s, req)
	case "read_history":
		return readHistory(s, req)
	case "snapshot":
		return sc.snapshot(s, req)
	default: // read_snapshot
		return readSnapshot(s, req)
	}
}

// key returns the request's key when it follows 4.3; otherwise INVALID_KEY (on read and delete the spec would also
// allow KEY_NOT_FOUND, since no such key can exist).
func key(req object) (string, error) {
	k, err := req.text("key")
	if err != nil || !validKey(k) {
		return "", refuse("INVALID_KEY", "key must match [a-z0-9_]+ and be at most %d characters long", maxKeyLength)
	}
	return k, nil
}

func entryJSON(key string, e entry) map[string]any {
	return map[string]any{"key": key, "value": e.Value, "written_by": e.WrittenBy, "written_at": e.WrittenAt, "version": e.Version}
}

func listKeys(s *session) any {
	keys := []map[string]any{}
	for _, k := range s.sortedKeys() {
		e, _ := s.current(k)
		// Metadata only: list_keys never returns values (3.1).
		keys = append(keys, map[string]any{
			"key": k, "written_by": e.WrittenBy, "written_at": e.WrittenAt, "version": e.Version,
			"value_size_tokens": tokens(e.Value),
		})
	}
	return map[string]any{"keys": keys, "total_size_tokens": s.totalTokens()}
}

func readKey(s *session, req object) (any, error) {
	k, err := key(req)
	if err != nil {
		return nil, err
	}
	e, ok := s.current(k)
	if !ok {
		return nil, refuse("KEY_NOT_FOUND", "no key %q in this session; call list_keys to see what exists", k)
	}
	return entryJSON(k, e), nil
}

func (sc *sharedContext) writeKey(s *session, req object, ctx object) (any, error) {
	k, err := key(req)
	if err != nil {
		return nil, err
	}
	value, err := req.text("value")
	if errors.Is(err, errLoneSurrogate) {
		return nil, refuse("INVALID_REQUEST", "value %v; send valid Unicode text", err)
	}
	if err != nil {
		return nil, refuse("INVALID_REQUEST", "value must be a string: serialize structured data (2.3)")
	}
	caller, err := participant(ctx)
	if err != nil {
		return nil, err
	}
	n := tokens(value)
	if n > maxValueTokens {
		return nil, refuse("VALUE_TOO_LARGE", "value is about %d tokens; the limit is %d: distill it", n, maxValueTokens)
	}
	if s.Archived {
		return nil, refuse("SESSION_ARCHIVED", "session %q is archived and read-only", s.ID)
	}
	old, existed := s.current(k)
	total := s.totalTokens() + n
	if existed {
		total -= tokens(old.Value)
	}
	if total > maxStoreTokens {
		return nil, refuse("STORE_FULL", "the store would hold %d tokens; the limit is %d: delete keys first", total, maxStoreTokens)
	}

	e := entry{Value: value, WrittenBy: caller, WrittenAt: utcNow(), Version: old.Version + 1}
	versions := append(s.Keys[k], e)
	if len(versions) > historyDepth {
		versions = append([]entry(nil), versions[len(versions)-historyDepth:]...)
	}
	s.Keys[k] = versions
	if err := sc.save(s); err != nil {
		return nil, err
	}
	audit("write", s.ID, k, e)

	result := map[string]any{"key": k, "version": e.Version, "written_by": e.WrittenBy, "written_at": e.WrittenAt}
	if n >= warnTokens {
		result["warning"] = fmt.Sprintf("value is about %d tokens, close to the %d-token limit: distill it", n, maxValueTokens)
	}
	return result, nil
}

func (sc *sharedContext) deleteKey(s *session, req object, ctx object) (any, error) {
	k, err := key(req)
	if err != nil {
		return nil, err
	}
	caller, err := participant(ctx)
	if err != nil {
		return nil, err
	}
	if s.Archived {
		return nil, refuse("SESSION_ARCHIVED", "session %q is archived and read-only", s.ID)
	}
	old, ok := s.current(k)
	if !ok {
		return nil, refuse("KEY_NOT_FOUND", "no key %q in this session; call list_keys to see what exists", k)
	}
	delete(s.Keys, k)
	if err := sc.save(s); err != nil {
		return nil, err
	}
	audit("delete", s.ID, k, entry{Value: old.Value, WrittenBy: caller, WrittenAt: utcNow(), Version: old.Version})
	return map[string]any{"deleted": k, "previous_version": old.Version}, nil
}

// participant is the caller's identity, which the system sets in the call's context; it becomes written_by (3.3),
// whatever the request body says.
func participant(ctx object) (string, error) {
	p, err := ctx.text("participant")
	if err != nil || p == "" {
		return "", refuse("INVALID_REQUEST", "the call carries no participant identity; the system must set one")
	}
	return p, nil
}

// audit logs a write or delete to stderr with its metadata, never the value (8.5); for a delete, written_by and
// timestamp are who deleted the key and when.
func audit(event, sessionID, key string, e entry) {
	record, _ := json.Marshal(map[string]any{
		"event": event, "session_id": sessionID, "key": key, "written_by": e.WrittenBy,
		"timestamp": e.WrittenAt, "value_size_tokens": tokens(e.Value), "version": e.Version,
	})
	log.Print(string(record))
}

// --- extensions (7.3, 7.4, 7.6); their response shapes are the kit's -------------------------------------------

// readBatch returns the entries of the listed keys that exist, and the others as missing (7.4's second reading).
func readBatch(s *session, req object) (any, error) {
	items, ok := req.array("keys")
	if !ok || len(items) == 0 || len(items) > maxBatchKeys {
		return nil, refuse("INVALID_REQUEST", "keys must be a list of 1 to %d keys", maxBatchKeys)
	}
	entries, missing := []map[string]any{}, []string{}
	seen := map[string]bool{}
	for _, item := range items {
		k, err := decodeText(item)
		if err != nil || !validKey(k) {
			return nil, refuse("INVALID_KEY", "every key must match [a-z0-9_]+ and be at most %d characters long", maxKeyLength)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		if e, ok := s.current(k); ok {
			entries = append(entries, entryJSON(k, e))
		} else {
			missing = append(missing, k)
		}
	}
	return map[string]any{"entries": entries, "missing": missing}, nil
}

// readHistory returns the retained versions of a key (the last 10), oldest first, or those of them asked for.
func readHistory(s *session, req object) (any, error) {
	k, err := key(req)
	if err != nil {
		return nil, err
	}
	wanted := map[int]bool{}
	if req.has("versions") {
		items, ok := req.array("versions")
		for _, item := range items {
			v, isVersion := positiveInt(item)
			ok = ok && isVersion
			wanted[v] = true
		}
		if !ok {
			return nil, refuse("INVALID_REQUEST", "versions must be a list of positive integers")
		}
	}
	versions, ok := s.Keys[k]
	if !ok {
		return nil, refuse("KEY_NOT_FOUND", "no key %q in this session", k)
	}
	found := []map[string]any{}
	for _, e := range versions {
		if !req.has("versions") || wanted[e.Version] {
			found = append(found, entryJSON(k, e))
		}
	}
	return map[string]any{"key": k, "versions": found}, nil
}

func label(req object) (string, error) {
	l, err := req.text("label")
	if err != nil || l == "" {
		return "", refuse("INVALID_REQUEST", "label must be a non-empty string of Unicode text")
	}
	return l, nil
}

// snapshot freezes the session's current entries under a label; a label is never reused.
func (sc *sharedContext) snapshot(s *session, req object) (any, error) {
	l, err := label(req)
	if err != nil {
		return nil, err
	}
	if s.Archived {
		return nil, refuse("SESSION_ARCHIVED", "session %q is archived and read-only", s.ID)
	}
	if _, taken := s.Snapshots[l]; taken {
		return nil, refuse("SNAPSHOT_EXISTS", "a snapshot labelled %q exists and is never replaced; choose another label", l)
	}
	frozen := snapshot{TakenAt: utcNow(), Entries: map[string]entry{}}
	for k := range s.Keys {
		frozen.Entries[k], _ = s.current(k)
	}
	s.Snapshots[l] = frozen
	if err := sc.save(s); err != nil {
		return nil, err
	}
	return map[string]any{"label": l, "taken_at": frozen.TakenAt, "key_count": len(frozen.Entries)}, nil
}

func readSnapshot(s *session, req object) (any, error) {
	l, err := label(req)
	if err != nil {
		return nil, err
	}
	frozen, ok := s.Snapshots[l]
	if !ok {
		return nil, refuse("SNAPSHOT_NOT_FOUND", "no snapshot labelled %q in this session", l)
	}
	keys := make([]string, 0, len(frozen.Entries))
	for k := range frozen.Entries {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	entries := []map[string]any{}
	for _, k := range keys {
		entries = append(entries, entryJSON(k, frozen.Entries[k]))
	}
	return map[string]any{"label": l, "taken_at": frozen.TakenAt, "entries": entries}, nil
}

func contains(list []string, s string) bool {
	for _, item := range list {
		if item == s {
			return true
		}
	}
	return false
}

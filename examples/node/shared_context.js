'use strict';

// Shared Context 0.1.0-draft: per-session key-value working memory for agents.
//
// Every session lives in memory and in one JSON file of its own under <state_dir>/shared-context/
// ("an in-memory dict serialized to disk per session", spec 8.1). A change is written to disk first
// (temp file, fsync, rename) and only then made visible and answered, so an acknowledged write survives
// a crash or a restart. All sessions are loaded at start: this process must be the only one on the state.

const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const { SpecError } = require('./spec_error');

const VERSION = '0.1.0-draft';
// write_warning and read_batch are the optional features implemented here; read_history and snapshot are not.
// single_instance: the state is held in this process's memory, so two processes must not share a state_dir.
const FEATURES = ['write_warning', 'read_batch', 'single_instance'];

const MAX_VALUE_TOKENS = 1000; // 4.1
const WARN_VALUE_TOKENS = 800; // 4.1: "may return a warning at 800 tokens"
const MAX_STORE_TOKENS = 10000; // 4.2
const MAX_BATCH_KEYS = 100; // read_batch: a bound of this implementation
// 4.3: lowercase ASCII letters, digits and underscores, 1 to 64 of them. Without the m flag, $ is the very
// end of the string (unlike Python's $, which also matches before a final "\n").
const KEY_PATTERN = /^[a-z0-9_]{1,64}$/;

// The fields each action takes besides "action"; all of them are required. A Map, not an object literal:
// an action named "__proto__" or "toString" must not find something on Object.prototype.
const ACTIONS = new Map([
  ['list_keys', []],
  ['read', ['key']],
  ['write', ['key', 'value']],
  ['delete', ['key']],
  ['read_batch', ['keys']],
]);

// 8.2: tokens are approximated as len(value) / 4, rounded up here. len counts characters (Unicode code
// points), but a JavaScript string's .length counts UTF-16 code units, so an emoji would count as two.
// Iterating a string yields code points.
function estimateTokens(value) {
  let characters = 0;
  for (const _ of value) characters += 1;
  return Math.ceil(characters / 4);
}

function isObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onlyFields(args, allowed, what) {
  if (!isObject(args)) throw new SpecError('INVALID_REQUEST', `${what} takes a JSON object`);
  const extra = Object.keys(args).filter((name) => !allowed.includes(name));
  if (extra.length > 0) throw new SpecError('INVALID_REQUEST', `${what} takes no field(s) ${extra.join(', ')}`);
}

function checkKey(key) {
  if (typeof key !== 'string') {
    throw new SpecError('INVALID_KEY', `key must be a string, got ${key === null ? 'null' : typeof key}`);
  }
  if (!KEY_PATTERN.test(key)) {
    const shown = JSON.stringify(key.slice(0, 80));
    throw new SpecError('INVALID_KEY', `key ${shown} must be 1 to 64 characters of [a-z0-9_] (4.3)`);
  }
  return key;
}

class SharedContext {
  constructor(stateDir) {
    this.dir = path.join(stateDir, 'shared-context');
    fs.mkdirSync(this.dir, { recursive: true });
    this.sessions = new Map(); // session_id -> {id, state: 'active' | 'archived', entries: Map key -> entry}
    for (const name of fs.readdirSync(this.dir)) {
      if (!name.endsWith('.json')) continue; // a temp file left by a crash mid-write: its rename never happened
      const saved = JSON.parse(fs.readFileSync(path.join(this.dir, name), 'utf8'));
      const entries = new Map(saved.entries.map((entry) => [entry.key, entry]));
      this.sessions.set(saved.session_id, { id: saved.session_id, state: saved.state, entries });
    }
  }

  call(op, args, context) {
    switch (op) {
      case 'shared_context':
        return this.tool(args, context);
      case 'create_session':
        return this.createSession(args);
      case 'archive_session':
        return this.archiveSession(args);
      case 'delete_session':
        return this.deleteSession(args);
      default:
        throw new SpecError('UNKNOWN_OP', `shared-context has no operation ${JSON.stringify(op)}`);
    }
  }

  // --- session lifecycle (8.4): system operations, not tool actions -------------------------------------
  // They are separate protocol operations, so no agent can reach them through the shared_context tool.

  createSession(args) {
    onlyFields(args, ['session_id', 'config'], 'create_session');
    const id = sessionIdOf(args);
    if (args.config !== undefined && !isObject(args.config)) {
      throw new SpecError('INVALID_REQUEST', 'config must be an object when given');
    }
    // Creating an existing session is refused, never a wipe of what it holds.
    if (this.sessions.has(id)) throw new SpecError('SESSION_EXISTS', `session ${JSON.stringify(id)} already exists`);
    this.commit({ id, state: 'active', entries: new Map() });
    return { session_id: id, state: 'active' };
  }

  archiveSession(args) {
    onlyFields(args, ['session_id'], 'archive_session');
    const session = this.existing(sessionIdOf(args));
    // Archived is read-only, but retained for audit (8.4): reads keep working, writes get SESSION_ARCHIVED.
    this.commit({ ...session, state: 'archived' });
    return { session_id: session.id, state: 'archived' };
  }

  deleteSession(args) {
    onlyFields(args, ['session_id'], 'delete_session');
    const session = this.existing(sessionIdOf(args));
    fs.rmSync(this.fileOf(session.id), { force: true });
    syncDirectory(this.dir); // make the removal itself durable
    this.sessions.delete(session.id);
    return { session_id: session.id, deleted: true };
  }

  // --- the shared_context tool (3) -----------------------------------------------------------------------

  tool(request, context) {
    // Check the request itself first, then the session, then the store's limits and contents.
    if (!isObject(request)) {
      throw new SpecError('INVALID_REQUEST', 'the request must be a JSON object with an "action"');
    }
    const { action } = request;
    if (typeof action !== 'string' || !ACTIONS.has(action)) {
      const known = [...ACTIONS.keys()].join(', ');
      throw new SpecError('INVALID_ACTION', `unknown action ${JSON.stringify(action)}; expected one of ${known}`);
    }
    const fields = ACTIONS.get(action);
    onlyFields(request, ['action', ...fields], action);
    const missing = fields.filter((name) => !Object.hasOwn(request, name));
    if (missing.length > 0) {
      throw new SpecError('INVALID_REQUEST', `${action} needs the field(s) ${missing.join(', ')}`);
    }

    if (action === 'read' || action === 'write' || action === 'delete') checkKey(request.key);
    if (action === 'write') checkValue(request.value);
    if (action === 'read_batch') checkBatch(request.keys);

    const session = this.existing(context.session_id);
    switch (action) {
      case 'list_keys':
        return listKeys(session);
      case 'read':
        return entryOf(found(session, request.key));
      case 'write':
        return this.write(session, participantOf(context), request.key, request.value);
      case 'delete':
        return this.delete(session, participantOf(context), request.key);
      case 'read_batch':
        return readBatch(session, request.keys);
    }
    throw new Error(`unreachable: action ${action}`);
  }

  write(session, participant, key, value) {
    writable(session);
    const tokens = estimateTokens(value);
    const old = session.entries.get(key);
    const total = storeTokens(session) - (old ? old.tokens : 0) + tokens;
    if (total > MAX_STORE_TOKENS) {
      const message = `the store would hold ${total} tokens; the limit is ${MAX_STORE_TOKENS}: delete keys first`;
      throw new SpecError('STORE_FULL', message);
    }
    const entry = {
      key,
      value,
      written_by: participant, // from the call's context, never from the request (3.3: agents cannot spoof it)
      written_at: new Date().toISOString(), // UTC, e.g. 2026-02-20T14:30:00.000Z
      version: old ? old.version + 1 : 1, // a key written again after its delete starts again at 1
      tokens,
    };
    this.commit({ ...session, entries: new Map(session.entries).set(key, entry) });
    audit('write', session.id, entry);
    const result = { key, version: entry.version, written_by: participant, written_at: entry.written_at };
    if (tokens >= WARN_VALUE_TOKENS) {
      result.warning = `value is about ${tokens} tokens, close to the ${MAX_VALUE_TOKENS}-token limit: distill it`;
    }
    return result;
  }

  delete(session, participant, key) {
    writable(session);
    const old = found(session, key);
    const entries = new Map(session.entries);
    entries.delete(key);
    this.commit({ ...session, entries });
    audit('delete', session.id, { ...old, written_by: participant, written_at: new Date().toISOString() });
    return { deleted: key, previous_version: old.version };
  }

  // --- state ---------------------------------------------------------------------------------------------

  existing(id) {
    const session = typeof id === 'string' ? this.sessions.get(id) : undefined;
    if (session === undefined) {
      const message = `no session ${JSON.stringify(id)}; it was never created or has been deleted`;
      throw new SpecError('SESSION_NOT_FOUND', message);
    }
    return session;
  }

  // Write `session` (a new object, never the one in memory) to disk, then make it the current one. If the
  // disk write fails, memory still holds the previous state and the call is answered "errored".
  commit(session) {
    const saved = { session_id: session.id, state: session.state, entries: [...session.entries.values()] };
    writeFileAtomic(this.fileOf(session.id), JSON.stringify(saved));
    this.sessions.set(session.id, session);
  }

  // A session id is any string: hashing it gives a safe file name, whatever it holds ("../x", "CON", NUL).
  // Hashed as UTF-16 code units: UTF-8 would turn a lone surrogate into U+FFFD and make "a\ud800" and
  // "a\ufffd" share one file.
  fileOf(id) {
    return path.join(this.dir, crypto.createHash('sha256').update(id, 'utf16le').digest('hex') + '.json');
  }
}

function sessionIdOf(args) {
  if (typeof args.session_id !== 'string' || args.session_id === '') {
    throw new SpecError('INVALID_REQUEST', 'session_id must be a non-empty string');
  }
  return args.session_id;
}

function participantOf(context) {
  if (typeof context.participant !== 'string' || context.participant === '') {
    throw new SpecError('INVALID_REQUEST', 'the call carries no participant identity; the system must set one');
  }
  return context.participant;
}

function checkValue(value) {
  if (typeof value !== 'string') {
    throw new SpecError('INVALID_REQUEST', 'value must be a string (2.3: the caller serializes structured data)');
  }
  const tokens = estimateTokens(value);
  if (tokens > MAX_VALUE_TOKENS) {
    const message = `value is about ${tokens} tokens; the limit is ${MAX_VALUE_TOKENS}: distill it`;
    throw new SpecError('VALUE_TOO_LARGE', message);
  }
}

function checkBatch(keys) {
  if (!Array.isArray(keys) || keys.length === 0 || keys.length > MAX_BATCH_KEYS) {
    throw new SpecError('INVALID_REQUEST', `keys must be a list of 1 to ${MAX_BATCH_KEYS} keys`);
  }
  keys.forEach(checkKey);
}

function writable(session) {
  if (session.state === 'archived') {
    throw new SpecError('SESSION_ARCHIVED', `session ${JSON.stringify(session.id)} is archived and read-only`);
  }
}

function found(session, key) {
  const entry = session.entries.get(key);
  if (entry === undefined) {
    const message = `no key ${JSON.stringify(key)} in this session; call list_keys to see what exists`;
    throw new SpecError('KEY_NOT_FOUND', message);
  }
  return entry;
}

function storeTokens(session) {
  let total = 0;
  for (const entry of session.entries.values()) total += entry.tokens;
  return total;
}

function entryOf(entry) {
  const { key, value, written_by, written_at, version } = entry;
  return { key, value, written_by, written_at, version };
}

function listKeys(session) {
  const keys = [...session.entries.values()]
    .sort((a, b) => (a.key < b.key ? -1 : 1))
    .map(({ key, written_by, written_at, version, tokens }) => ({
      key,
      written_by,
      written_at,
      version,
      value_size_tokens: tokens,
    }));
  // 4.2: "should return current total size in list_keys response metadata".
  return { keys, total_size_tokens: storeTokens(session) };
}

// 7.4: the entries found, and the keys that do not exist (one missing key does not fail the batch).
function readBatch(session, keys) {
  const entries = [];
  const missing = [];
  for (const key of new Set(keys)) {
    const entry = session.entries.get(key);
    if (entry === undefined) missing.push(key);
    else entries.push(entryOf(entry));
  }
  return { entries, missing };
}

// 8.5: log every write and delete with its metadata, never the value. stderr: stdout belongs to the protocol.
function audit(event, sessionId, entry) {
  const record = {
    event,
    session_id: sessionId,
    key: entry.key,
    written_by: entry.written_by,
    timestamp: entry.written_at,
    value_size_tokens: entry.tokens,
    version: entry.version,
  };
  process.stderr.write(JSON.stringify(record) + '\n');
}

// Replace `file` with `text` so that a crash leaves either the old or the new content, never half of
// each: write a temp file, fsync it, rename it over the old one (atomic on POSIX), fsync the directory.
function writeFileAtomic(file, text) {
  const temp = `${file}.tmp`;
  const fd = fs.openSync(temp, 'w', 0o600);
  try {
    fs.writeFileSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, file);
  syncDirectory(path.dirname(file));
}

// A rename or an unlink is durable once the directory holding it is synced.
function syncDirectory(dir) {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

module.exports = { SharedContext, VERSION, FEATURES, estimateTokens };

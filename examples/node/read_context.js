'use strict';

// ADR-059: read_context(image_id) loads an image's context in a fixed order and shape:
// tastes (global folder), brief, notes, recent log and recent gaps (the image's workspace).
//
// Files are read on every call, never cached: people edit them between calls. Every file is optional
// ("Every loader returns an empty struct on missing/unreadable files"), so any failure to read one, or
// to decode it as UTF-8, gives that piece's empty value instead of an error.

const fs = require('node:fs');
const path = require('node:path');
const { SpecError } = require('./spec_error');

const VERSION = 'ADR-059';
const FEATURES = [];

const NOTES_HEAD_LINES = 10;
const NOTES_TAIL_LINES = 30;
const NOTES_TRUNCATION_THRESHOLD = NOTES_HEAD_LINES + NOTES_TAIL_LINES;
const RECENT = 10; // entries of recent_log and recent_gaps
// Bounds of this implementation, on memory: a markdown file larger than this reads as unreadable (empty),
// and a JSONL file is only read this far back from its end.
const MAX_TEXT_BYTES = 64 * 1024 * 1024;
const MAX_JSONL_TAIL_BYTES = 16 * 1024 * 1024;

// The gap record of the ADR, in its order, with the defaults of absent fields.
const GAP_DEFAULTS = {
  timestamp: null,
  image_id: null,
  description: '',
  session_id: null,
  snapshot_hash: null,
  intent: null,
  intent_category: 'uncategorized',
  missing_capability: null,
  operations_involved: [],
  vocabulary_used: [],
  satisfaction: null,
  notes: '',
};

// fatal: invalid UTF-8 throws (the file then reads as unreadable) instead of turning into U+FFFD.
// ignoreBOM: a byte order mark is kept as U+FEFF, as written, instead of being silently dropped.
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

// An image id names one folder under the workspace root, so it must be a plain folder name.
const UNSAFE_ID = /[/\\\u0000-\u001f\u007f]/;
// A genre names one file in the tastes folder: no separators, control characters or leading dot.
const GENRE = /^[^./\\\u0000-\u001f\u007f][^/\\\u0000-\u001f\u007f]{0,99}$/;

class ReadContext {
  constructor(options) {
    this.workspaceRoot = options.workspace_root;
    this.tastesDir = options.tastes_dir;
  }

  call(op, args) {
    if (op !== 'read_context') {
      throw new SpecError('UNKNOWN_OP', `read-context has no operation ${JSON.stringify(op)}`);
    }
    const argsOk = typeof args === 'object' && args !== null && !Array.isArray(args);
    if (!argsOk || Object.keys(args).length !== 1 || typeof args.image_id !== 'string') {
      throw new SpecError('INVALID_REQUEST', 'read_context takes exactly one argument, image_id, a string');
    }
    return this.readContext(args.image_id);
  }

  readContext(imageId) {
    const workspace = this.workspaceOf(imageId);
    const brief = parseBrief(readText(inside(workspace, 'brief.md')));
    // The keys in the ADR's loading order: each piece informs the next.
    return {
      tastes: this.tastes(brief.tastes),
      brief,
      notes: summarizeNotes(readText(inside(workspace, 'notes.md'))),
      recent_log: lastObjects(inside(workspace, 'log.jsonl')).map(logEntry),
      recent_gaps: lastObjects(inside(workspace, 'vocabulary_gaps.jsonl')).map(gapRecord),
    };
  }

  // The image's workspace folder, refusing any id that could name something other than one folder
  // directly under the root ("..", "a/b", control characters, a symlink pointing out of the root).
  workspaceOf(imageId) {
    const plain =
      imageId !== '' &&
      imageId !== '.' &&
      imageId !== '..' &&
      !UNSAFE_ID.test(imageId) &&
      imageId.isWellFormed() && // a lone surrogate would be written to the file system as U+FFFD: another name
      Buffer.byteLength(imageId) <= 255; // the longest file name Linux and macOS take
    if (!plain) {
      throw new SpecError(
        'invalid_image_id',
        'image_id must be a plain folder name: no separators, control characters, "." or ".."',
      );
    }
    if (!isDirectory(path.join(this.workspaceRoot, imageId))) {
      throw new SpecError('not_found', `no workspace for image ${JSON.stringify(imageId)}`);
    }
    const folder = inside(this.workspaceRoot, imageId);
    if (folder === null) {
      throw new SpecError('invalid_image_id', 'image_id is a symlink out of the workspace root; nothing was read');
    }
    return folder;
  }

  // _default.md always; each declared genre's <genre>.md on top; lines shared by genre files as conflicts.
  tastes(declared) {
    const genres = new Map();
    for (const genre of declared) {
      if (!GENRE.test(genre) || genre.includes('..') || !genre.isWellFormed()) continue;
      const text = readText(inside(this.tastesDir, `${genre}.md`));
      if (text !== '') genres.set(genre, text); // a missing or empty genre file is left out
    }
    return {
      default: readText(inside(this.tastesDir, '_default.md')),
      // Object.fromEntries, not genres[name] = ...: a genre named "__proto__" must be an ordinary key.
      genres: Object.fromEntries(genres),
      conflicts: findConflicts(genres),
    };
  }
}

// --- files -----------------------------------------------------------------------------------------------

// The real path of `name` inside `folder`, or null when it is missing or a symlink leads out of `folder`.
function inside(folder, name) {
  try {
    const root = fs.realpathSync(folder);
    const target = fs.realpathSync(path.join(folder, name));
    const relative = path.relative(root, target);
    const outside =
      relative === '' || relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
    return outside ? null : target;
  } catch {
    return null;
  }
}

function isDirectory(folder) {
  try {
    return fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

// Call `use(fd, size)` on the file opened for reading, only when it is a regular file; null otherwise.
// O_NONBLOCK: opening a FIFO must not wait for a writer (it is then refused as not a regular file).
function withRegularFile(file, use) {
  if (file === null) return null;
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK | fs.constants.O_NOCTTY);
  } catch {
    return null;
  }
  try {
    const info = fs.fstatSync(fd);
    return info.isFile() ? use(fd, info.size) : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

// `length` bytes from `position` (fewer if the file shrank meanwhile).
function readBytes(fd, position, length) {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const got = fs.readSync(fd, buffer, done, length - done, position + done);
    if (got === 0) break;
    done += got;
  }
  return buffer.subarray(0, done);
}

// A markdown file's text; '' when it is missing, not a regular file, too large or not UTF-8.
function readText(file) {
  const text = withRegularFile(file, (fd, size) => {
    return size > MAX_TEXT_BYTES ? null : UTF8.decode(readBytes(fd, 0, size)); // decode throws on invalid UTF-8
  });
  return text ?? '';
}

// A text's lines: split at "\n" (a "\r" before it belongs to the break); a final break starts no line.
function splitLines(text) {
  const lines = text.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

// --- brief -----------------------------------------------------------------------------------------------

// The origin's declaration syntax: "Tastes: a, b" in any letter case, optionally "[a, b]" and quoted names.
const DECLARATION = /^[ \t]*tastes[ \t]*:(.*)$/is; // s: the names may hold any character

function parseBrief(raw) {
  const tastes = [];
  const intent = [];
  for (const line of raw.split('\n')) {
    const declared = DECLARATION.exec(line.endsWith('\r') ? line.slice(0, -1) : line);
    if (declared === null) {
      intent.push(line);
      continue;
    }
    // Several Tastes: lines add up, each name once.
    for (const name of genreNames(declared[1])) if (!tastes.includes(name)) tastes.push(name);
  }
  return {
    raw, // the whole file, as written
    intent: intent.join('\n').replace(/\r\n/g, '\n').trim(), // everything except the Tastes: line(s)
    tastes,
  };
}

function genreNames(listed) {
  let names = listed.trim();
  if (names.startsWith('[') && names.endsWith(']')) names = names.slice(1, -1);
  return names
    .split(',')
    .map((name) => name.trim().replace(/^["'`]+|["'`]+$/g, '').trim())
    .filter((name) => name !== '');
}

// --- tastes ----------------------------------------------------------------------------------------------

// A line in two or more genre files is a conflict, surfaced for the agent to mediate, never resolved.
// Lines are compared stripped; blank lines, "#" headings and one-line <!-- comments --> never conflict.
function findConflicts(genres) {
  const holders = new Map(); // line -> the genres whose file holds it
  for (const [genre, text] of genres) {
    const points = new Set(splitLines(text).map((line) => line.trim()));
    for (const point of points) {
      if (point === '' || point.startsWith('#') || (point.startsWith('<!--') && point.endsWith('-->'))) continue;
      if (!holders.has(point)) holders.set(point, []);
      holders.get(point).push(genre);
    }
  }
  return [...holders].filter(([, files]) => files.length > 1).map(([point, files]) => ({ point, files }));
}

// --- notes -----------------------------------------------------------------------------------------------

// Notes of at most 40 lines come back raw; longer ones as the first 10 lines, a marker saying how many
// lines were left out, and the last 30.
function summarizeNotes(text) {
  const lines = splitLines(text);
  if (lines.length <= NOTES_TRUNCATION_THRESHOLD) return { summary: text, truncated: false };
  const head = lines.slice(0, NOTES_HEAD_LINES).join('\n');
  const tail = lines.slice(-NOTES_TAIL_LINES).join('\n');
  const marker = `\n\n... [${lines.length - NOTES_TRUNCATION_THRESHOLD} lines elided] ...\n\n`;
  return { summary: head + marker + tail, truncated: true };
}

// --- recent log and gaps ---------------------------------------------------------------------------------

// The last RECENT JSON objects of a JSON-lines file, newest (last) first. A line that is blank, not
// UTF-8, not JSON or not an object is skipped. Only the end of the file is read, however large it is.
function lastObjects(file) {
  return (
    withRegularFile(file, (fd, size) => {
      const start = Math.max(0, size - MAX_JSONL_TAIL_BYTES);
      const bytes = readBytes(fd, start, size - start);
      const found = [];
      let end = bytes.length;
      while (end > 0 && found.length < RECENT) {
        const lineStart = bytes.lastIndexOf(0x0a, end - 1) + 1; // 0 when there is no earlier "\n"
        if (lineStart === 0 && start > 0) break; // the line began before the part read: never parse half a line
        const record = jsonObject(bytes.subarray(lineStart, end));
        if (record !== null) found.push(record);
        end = lineStart - 1;
      }
      return found;
    }) ?? []
  );
}

function jsonObject(bytes) {
  try {
    const value = JSON.parse(UTF8.decode(bytes)); // JSON allows the "\r" of a "\r\n" as trailing white space
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? value : null;
  } catch {
    return null;
  }
}

// {timestamp, op, details}: details holds every other key of the line.
function logEntry(record) {
  const details = Object.fromEntries(Object.entries(record).filter(([key]) => key !== 'timestamp' && key !== 'op'));
  return {
    timestamp: typeof record.timestamp === 'string' ? record.timestamp : '',
    op: typeof record.op === 'string' ? record.op : '',
    details,
  };
}

// The full gap record: each field as the line gives it when it has the field's type, else its default.
function gapRecord(record) {
  const gap = {};
  for (const [field, fallback] of Object.entries(GAP_DEFAULTS)) {
    const value = Object.hasOwn(record, field) ? record[field] : fallback;
    gap[field] = fits(field, value) ? value : fallback;
  }
  return gap;
}

function fits(field, value) {
  const fallback = GAP_DEFAULTS[field];
  if (field === 'satisfaction') return value === null || value === -1 || value === 0 || value === 1;
  if (Array.isArray(fallback)) return Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (fallback === null) return value === null || typeof value === 'string';
  return typeof value === 'string';
}

module.exports = { ReadContext, VERSION, FEATURES };

'use strict';

// The ctxconform stdio protocol: one JSON object per line on stdin, one reply per line on stdout.
//
//   → {"type":"start","protocol":1,"state_dir":"...","options":{...}}   ← {"type":"started",...}
//   → {"type":"call","seq":N,"spec":"...","op":"...","args":...,"context":{...}}
//                                                ← {"type":"reply","seq":N,"result"|"error"|"errored":...}
//   → {"type":"stop"}                                                   ← {"type":"stopped"}
//
// Calls are answered one at a time, in order. Nothing else may be written to stdout: logs go to stderr.

const readline = require('node:readline');
const { once } = require('node:events');
const { SpecError } = require('./spec_error');
const sharedContext = require('./shared_context');
const readContext = require('./read_context');

const IMPLEMENTATION = { name: 'ctxconform-node-example', version: '0.1.0', language: 'javascript' };

// Spec id -> its handler, filled in by `start`.
let handlers = new Map();

function start(message) {
  const options = message.options ?? {};
  handlers = new Map([
    ['shared-context', new sharedContext.SharedContext(message.state_dir)],
    ['read-context', new readContext.ReadContext(options['read-context'] ?? {})],
  ]);
  // Declare only what is implemented: the harness skips the tests of undeclared optional features.
  return {
    type: 'started',
    implementation: IMPLEMENTATION,
    specs: {
      'shared-context': { version: sharedContext.VERSION, features: sharedContext.FEATURES },
      'read-context': { version: readContext.VERSION, features: readContext.FEATURES },
    },
  };
}

function call(message) {
  const reply = { type: 'reply', seq: message.seq };
  try {
    const handler = handlers.get(message.spec);
    if (handler === undefined) {
      throw new SpecError('UNKNOWN_OP', `this implementation does not serve the spec ${JSON.stringify(message.spec)}`);
    }
    reply.result = handler.call(message.op, message.args, message.context ?? {});
  } catch (error) {
    if (error instanceof SpecError) {
      reply.error = { code: error.code, message: error.message };
    } else {
      // A failure the spec does not define (a full disk, a bug): the verdict is ERRORED, and the process lives on.
      reply.errored = { message: String(error?.message ?? error), traceback: String(error?.stack ?? '') };
    }
  }
  return reply;
}

async function main() {
  const lines = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
  for await (const line of lines) {
    if (line.trim() === '') continue;
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      // Not a protocol message: there is no seq to answer, so say so on stderr and go on.
      process.stderr.write('ignored a line that is not JSON\n');
      continue;
    }
    let reply;
    if (message?.type === 'start') reply = start(message);
    else if (message?.type === 'call') reply = call(message);
    else if (message?.type === 'stop') reply = { type: 'stopped' };
    else continue;

    // JSON.stringify escapes every line break inside strings, so one reply is always one line; it also
    // escapes lone surrogates (\ud800), which keeps the output valid UTF-8.
    // Wait for the pipe to take the line before reading the next message: the harness reads replies in order,
    // and a 5 MB notes summary must not pile up in memory behind later replies.
    if (!process.stdout.write(JSON.stringify(reply) + '\n')) await once(process.stdout, 'drain');
    if (reply.type === 'stopped') break;
  }
  // After stop (or end of input): stop reading stdin, so the process exits once stdout is flushed.
  process.stdin.destroy();
}

main();

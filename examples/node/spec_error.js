'use strict';

// A refusal the spec (or the protocol) defines: it becomes {"error": {code, message}} in the reply.
// Anything else thrown while answering a call is a bug and becomes {"errored": ...} instead.
class SpecError extends Error {
  constructor(code, message) {
    super(message);
    this.name = 'SpecError';
    this.code = code;
  }
}

module.exports = { SpecError };

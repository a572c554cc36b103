// What the Node tests that hold the WebAssembly module to the native CLI share: the CLI's JSON, a
// model loaded from a file for the length of a body, and an MhaError's code.
// Needs build/native/mha.
'use strict';
const assert = require('node:assert/strict');
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../..');
const cli = path.join(root, 'build/native/mha');

const runCli = (args) => JSON.parse(execFileSync(cli, args, { encoding: 'utf8' }));

// body(model) with `file` loaded into a new model of `mha`, deleted after.
function withModel(mha, file, body) {
  const model = new mha.Model();
  try {
    model.loadModel(fs.readFileSync(file));
    return body(model);
  } finally {
    model.delete();
  }
}

// fn must throw an MhaError of `mha` with this code (and these params, when given).
const refuses = (mha, fn, code, params) =>
  assert.throws(fn, (e) => {
    assert.ok(e instanceof mha.MhaError, String(e));
    assert.equal(e.code, code, e.message);
    if (params) assert.deepEqual(e.params, params);
    return true;
  });

module.exports = { root, runCli, withModel, refuses };

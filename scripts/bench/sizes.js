// The single-layer sizes npm run bench times (and npm run profile profiles): S a teaching example,
// M a GPT-2 small layer, L the same at T 512.
'use strict';

const SIZES = {
  S: { T: 8, dModel: 64, heads: 4 },
  M: { T: 128, dModel: 768, heads: 12 },
  L: { T: 512, dModel: 768, heads: 12 },
};

module.exports = { SIZES };

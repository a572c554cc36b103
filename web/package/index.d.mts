// Types of the package's ES module entry, dist/index.mjs: `import createMha, { MhaError } from 'mha-demo'`.
// The API itself is declared in mha.d.ts.
export * from './mha.js';
import { createMha } from './mha.js';
export default createMha;

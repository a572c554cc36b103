// Types of the package's CommonJS entry, dist/index.cjs: require('mha-demo') is createMha, with
// .createMha, .default and .MhaError on it. The API itself is declared in mha.d.ts.
export * from './mha';
import { createMha } from './mha';
export default createMha;

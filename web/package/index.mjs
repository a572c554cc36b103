// The npm package's ES module entry: the createMha of index.cjs (one module instance whichever way
// it is loaded).
import createMha from './index.cjs';

export default createMha;
export const { MhaError } = createMha;
export { createMha };

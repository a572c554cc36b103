// The package from CommonJS TypeScript (require('mha-demo') at run time). Compiled, never run.
import { createMha, MhaError } from 'mha-demo';
import createMhaDefault = require('mha-demo');

async function main(): Promise<number> {
  const mha = await createMha();
  const trace = new mha.Model({ dModel: 8, heads: 2 }).runText('a b');
  const again = await createMhaDefault.createMha({ wasmBinary: new Uint8Array(0) });
  const error: typeof MhaError = again.MhaError;
  return trace.shape('weights')[1] + (error === MhaError ? 0 : 1);
}
main().then(console.log);

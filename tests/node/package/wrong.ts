// Calls that must not compile: each line marked `wrong:` is a mistake tsc --strict has to report,
// and no other line may be reported (tests/node/package.test.js). Never run.
/// <reference types="mha-demo/element" />
import createMha from 'mha-demo';

async function mistakes() {
  const mha = await createMha();
  const model = new mha.Model({ heads: 'four' }); // wrong: heads is a number
  const trace = model.runText('a b');
  trace.data(3); // wrong: a tensor's name is a string
  model.loadWeights(new Uint8Array(0), 'onnx'); // wrong: no such layout
  new mha.Trace(); // wrong: traces come from runs
  model.prune({ samples: '64' }); // wrong: samples is a number
  trace.attribute(3); // wrong: options are {position, token}
  model.generate('a b', { topK: '5' }); // wrong: topK is a number
  const el = document.querySelector('mha-demo')!;
  el.goTo('nowhere'); // wrong: not a stage
  el.setAttribute('controls', 'some'); // wrong: full, minimal or none
  el.addEventListener('trainprogress', (e) => e.detail.nope); // wrong: no such detail
  el.runHeadSweep({ heads: '1,4' }); // wrong: head counts are numbers
  el.train({ task: 'brwn' }); // wrong: a recipe of the page (catalog.recipes)
  new mha.Trainer({ task: 'copy' }); // wrong: induction or recall (corpus is not the Trainer's yet)
  new mha.Trainer({ lerningRate: 0.01 }); // wrong: no such option (the module refuses it too)
}
mistakes();

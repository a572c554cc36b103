// An article's script around <mha-demo>, as the README's "Embed it" documents it. Compiled, never run.
/// <reference types="mha-demo/element" />
import type { MhaDemoAttributes, MhaDemoElement, TrainProgressDetail } from 'mha-demo/element';

const el = document.querySelector('mha-demo');
if (el) {
  el.addEventListener('stagechange', (e) => console.log(e.detail.stage.toUpperCase()));
  el.addEventListener('error', (e) => console.log(e.detail.attribute, e.detail.message));
  el.addEventListener('trainprogress', (e) => console.log(e.detail.step, e.detail.loss ?? NaN, e.detail.heads[0].label));
  el.addEventListener('trainend', (e) => console.log(e.detail.reason === 'done', e.detail.step));
  el.addEventListener('sweepprogress', (e) => console.log(e.detail.heads, e.detail.step / e.detail.steps));
  el.addEventListener('sweepend', (e) => console.log(e.detail.reason, e.detail.rows.map((r) => r.accuracy)));
  el.addEventListener('click', (e) => console.log(e.clientX));
  el.ready.then((demo: MhaDemoElement) => {
    demo.goTo('attend');
    demo.next();
    demo.prev();
    demo.focusStage();
    const stages = demo.stages ?? [];
    console.log(stages.length, demo.state.stage, demo.state.settings.heads, demo.state.result?.tokens, demo.memoryBytes);
    demo.train();
    demo.train({ task: 'tang' }).then(() => demo.pause());
    demo.pause();
    demo.resetTraining(3);
    console.log(demo.training?.step);
    demo.runHeadSweep({ heads: [1, 4, 64] }).then((rows) => rows.map((r) => [r.heads, r.dHead, r.parameters, r.accuracy, r.perReadout[0]]));
    demo.cancelHeadSweep();
    // What each head contributes, as the demo shows it: the picked position's parts, the pruning curve.
    const split = demo.state.result?.attributions;
    const steps = demo.state.pruning && 'steps' in demo.state.pruning ? demo.state.pruning.steps.length : 0;
    console.log(split ? split.values[split.parts.length * (demo.state.position ?? split.positions - 1)] : 0, steps);
    demo.generate(4);
    const last = demo.state.generation?.steps.at(-1);
    console.log(last?.token, last?.p, demo.state.sampling.temperature);
  });
  el.setAttribute('heads', '4');
  el.setAttribute('controls', 'minimal');
  el.setAttribute('model', 'recall');
  el.setAttribute('stage', 'split');
  el.setAttribute('generate', '6');
  el.setAttribute('temperature', '0.8');
  el.setAttribute('sample-seed', '7');
  el.setAttribute('class', 'wide');
  const input = document.querySelector('input');
  if (input?.files) el.openFile(input.files).then((opened) => console.log(opened.kind, opened.layout));
  el.cancelOpen();
}

const made = document.createElement('mha-demo');
const settings: Partial<MhaDemoAttributes> = { text: '我是秦始皇', 'd-model': '512', heads: '8', stage: 'attend', lang: 'zh' };
for (const [name, value] of Object.entries(settings)) made.setAttribute(name, value);
document.body.append(made);
const onProgress = (detail: TrainProgressDetail) => detail.stepsPerSecond;
made.addEventListener('trainprogress', (e) => onProgress(e.detail));

// The script also defines createMha() on the page.
createMha().then((mha) => mha.STAGES.length);

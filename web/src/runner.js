// Runs the core whenever a setting changes and puts the result (or the error, next to the control
// that caused it) into the store. Big runs first paint a "computing…" status.
import { fieldFor } from './messages.js';

function isLarge(s) {
  return s.dModel > 512 || [...(s.text || '')].length > 64;
}

// engine: {run(settings), runWorked(causal), isMhaError(e)}; ready() says whether it can run yet.
export function createRunner(store, engine, ready = () => true) {
  let scheduled = false;
  let lastChanged = null;

  function execute() {
    scheduled = false;
    const { settings } = store.state;
    const started = performance.now();
    let result;
    try {
      result = engine.run(settings);
    } catch (e) {
      if (!engine.isMhaError(e)) {
        store.set({ status: 'idle', fatal: String((e && e.message) || e) });
        return;
      }
      const key = e.phase === 'weights' ? 'weights' : fieldFor(e.message, e.phase, lastChanged);
      store.set({ errors: { [key]: e.message }, status: 'idle' });
      return;
    }
    const ms = performance.now() - started;
    const patch = { result, errors: {}, status: 'idle', lastMs: ms, fatal: null };
    if (store.state.head >= result.config.heads) patch.head = 0;
    if (!store.state.worked || store.state.worked.config.causal !== settings.causal) {
      patch.worked = engine.runWorked(settings.causal);
    }
    store.set(patch);
  }

  return {
    // changed: the settings key the learner just edited (for placing the error message).
    request(changed) {
      if (changed) lastChanged = changed;
      if (scheduled || !ready()) return;
      if (!isLarge(store.state.settings)) {
        execute();
        return;
      }
      scheduled = true;
      store.set({ status: 'computing' });
      requestAnimationFrame(() => setTimeout(execute, 0));
    },
  };
}

// The one state store every view reads. set() merges a patch and tells subscribers which keys changed.
export function createStore(initial) {
  const state = { ...initial };
  const listeners = new Set();
  return {
    state,
    set(patch) {
      const changed = Object.keys(patch).filter((k) => state[k] !== patch[k]);
      if (changed.length === 0) return;
      Object.assign(state, patch);
      for (const fn of listeners) fn(state, new Set(changed));
    },
    subscribe(fn) {
      listeners.add(fn);
      return () => listeners.delete(fn);
    },
  };
}

// The one state store every view reads. set() merges a patch and tells subscribers which keys changed.
// guards: {key: (value) -> null | Promise}: a value whose guard returns a promise is applied once that
// resolves (a language: its strings come first), the rest of its patch at once.
export function createStore(initial, guards = {}) {
  const state = { ...initial };
  const listeners = new Set();
  const store = {
    state,
    set(patch) {
      for (const [key, guard] of Object.entries(guards)) {
        const wait = key in patch ? guard(patch[key]) : null;
        if (!wait) continue;
        const value = patch[key];
        patch = { ...patch };
        delete patch[key];
        wait.then(() => store.set({ [key]: value }), () => {});
      }
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
  return store;
}

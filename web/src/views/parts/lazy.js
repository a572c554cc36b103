// Parts of a picture scrolled out of the viewport follow a new result just after it, not within the
// change: typing redraws what is seen inside one frame, and the parts under it (the heads panel, the
// enlarged head, a stage's lower tensors) a moment later. A watched node's update is deferred while
// an IntersectionObserver says it is out of view; it runs when the node comes into view, or once the
// frame with the change is out and the page is idle (within 300 ms at the latest). An idle callback
// asked for at once could run before that frame, in the time left before it, so the wait starts
// after the next frame.
const inView = new WeakMap(); // node -> boolean, once the observer has said
const pending = new Map(); // node -> the update to run
let observer = null;
let scheduled = null; // {cancel} while a flush is on its way

function onIntersect(entries) {
  for (const e of entries) {
    inView.set(e.target, e.isIntersecting);
    const update = e.isIntersecting && pending.get(e.target);
    if (update) {
      pending.delete(e.target);
      update();
    }
  }
}

// Starts watching a node whose updates may wait (and forgets it when the node is dropped).
export function watchLazy(node) {
  if (typeof IntersectionObserver !== 'function' || !node || node.nodeType !== 1) return;
  if (!observer) observer = new IntersectionObserver(onIntersect);
  observer.observe(node);
}

export function unwatchLazy(node) {
  if (!observer || !node || node.nodeType !== 1) return;
  observer.unobserve(node);
  pending.delete(node);
}

// Whether updates may wait: only while drawing a new result of the stage shown (sections.js); a
// stage navigated to, another language or head is drawn whole at once, so nothing shows old content.
let allowed = false;
export function withLazy(allow, draw) {
  const before = allowed;
  allowed = allow;
  try {
    return draw();
  } finally {
    allowed = before;
  }
}

// Runs update() now, or later if the node is out of view: true when it was put off. A later update
// for the same node replaces one still waiting.
export function later(node, update) {
  if (!allowed || inView.get(node) !== false) return false;
  pending.set(node, update);
  schedule();
  return true;
}

// Every update still waiting, now.
function flushLazy() {
  if (scheduled) scheduled.cancel();
  scheduled = null;
  const updates = [...pending.values()];
  pending.clear();
  for (const update of updates) update();
}

function schedule() {
  if (scheduled) return;
  let frame = requestAnimationFrame(() => {
    frame = null;
    timer = setTimeout(() => {
      timer = null;
      idleId = typeof requestIdleCallback === 'function' ? requestIdleCallback(flushLazy, { timeout: 300 }) : setTimeout(flushLazy, 50);
    }, 0);
  });
  let timer = null;
  let idleId = null;
  scheduled = {
    cancel() {
      if (frame !== null) cancelAnimationFrame(frame);
      if (timer !== null) clearTimeout(timer);
      if (idleId !== null) (typeof cancelIdleCallback === 'function' ? cancelIdleCallback : clearTimeout)(idleId);
    },
  };
}

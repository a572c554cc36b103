// bench:page --profile DIR: the page's main thread sampled (CDP Profiler) over a pass of the same
// changes, written as DIR/NAME.cpuprofile (Chrome DevTools opens it) and summed by function: where a
// change's milliseconds go when the busy column says they are too many. A page built with
// MHA_PROFILE=1 keeps its functions' names (bench/README.md).
'use strict';

const fs = require('node:fs');
const path = require('node:path');

const SAMPLE_US = 100;

async function startProfile(cdp) {
  await cdp.send('Profiler.enable');
  await cdp.send('Profiler.setSamplingInterval', { interval: SAMPLE_US });
  await cdp.send('Profiler.start');
  return async () => (await cdp.send('Profiler.stop')).profile;
}

// -> [{name, ms, share}] the functions with the most self time, ms per change.
function selfTimes(profile, changes, top = 12) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const dt = new Map();
  profile.samples.forEach((id, i) => dt.set(id, (dt.get(id) || 0) + (profile.timeDeltas[i + 1] ?? 0)));
  const byName = new Map();
  let busy = 0;
  for (const [id, us] of dt) {
    const f = byId.get(id).callFrame;
    if (f.functionName === '(idle)' || f.functionName === '(program)') continue;
    const where = f.url ? `${path.basename(f.url)}:${f.lineNumber + 1}:${f.columnNumber + 1}` : '';
    const name = `${f.functionName || '(anonymous)'}${where ? ` ${where}` : ''}`;
    byName.set(name, (byName.get(name) || 0) + us);
    busy += us;
  }
  return [...byName].sort((a, b) => b[1] - a[1]).slice(0, top)
    .map(([name, us]) => ({ name, ms: us / 1000 / changes, share: us / busy }));
}

function writeProfile(dir, name, profile) {
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.cpuprofile`);
  fs.writeFileSync(file, JSON.stringify(profile));
  return file;
}

module.exports = { startProfile, selfTimes, writeProfile };

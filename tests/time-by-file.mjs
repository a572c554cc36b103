// A node:test reporter that says where a run's time went, file by file: each test file's tests'
// durations summed (its beforeEach hooks, a page per test, inside them; its before hooks, a browser
// per file, not), how many, and its slowest test, the heaviest file first. scripts/test.sh adds it
// beside the TAP output, so every CI log ends each node:test run with the table (README: "Test time").
// Files run side by side, so the sums add up to more than the run's wall-clock time.
const seconds = (ms) => (ms / 1000).toFixed(1).padStart(6);

export default async function* timeByFile(source) {
  const files = new Map(); // file -> {sum, tests, slowest: {ms, name}}
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, name, details } = event.data;
    if (!file || nesting !== 0 || !details) continue;
    const f = files.get(file) || { sum: 0, tests: 0, slowest: { ms: -1, name: '' } };
    const ms = details.duration_ms || 0;
    f.sum += ms;
    f.tests += 1;
    if (ms > f.slowest.ms) f.slowest = { ms, name };
    files.set(file, f);
  }
  if (!files.size) return;
  yield '\n# where the time went, file by file (its tests\' durations summed, s)\n';
  for (const [file, f] of [...files].sort((a, b) => b[1].sum - a[1].sum)) {
    const short = file.split('/').slice(-2).join('/');
    yield `# ${seconds(f.sum)}  ${String(f.tests).padStart(3)} tests  ${short.padEnd(34)} slowest ${seconds(f.slowest.ms).trim()} s: ${f.slowest.name.slice(0, 80)}\n`;
  }
}

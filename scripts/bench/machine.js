// What the numbers were measured on: CPU, Node/V8, our module's build, load average.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const crypto = require('node:crypto');
const { execFileSync } = require('node:child_process');

function readOr(file, fallback = '') {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return fallback;
  }
}

function run(cmd, args, cwd) {
  try {
    return execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 }).trim();
  } catch {
    return '';
  }
}

function cpuModel() {
  const m = /^model name\s*:\s*(.+)$/m.exec(readOr('/proc/cpuinfo'));
  return m ? m[1].trim() : (os.cpus()[0] || {}).model || 'unknown';
}

function cpuFlags() {
  const m = /^flags\s*:\s*(.+)$/m.exec(readOr('/proc/cpuinfo'));
  const flags = new Set(m ? m[1].split(/\s+/) : []);
  return ['sse4_1', 'avx2', 'fma', 'avx512f'].filter((f) => flags.has(f)).join(' ');
}

function loadAverage() {
  return readOr('/proc/loadavg').split(/\s+/).slice(0, 3).join(' ');
}

// The web/build/mha-core.js that will be loaded, and how it was configured (build/wasm's CMake cache).
function coreBuild(root) {
  const file = path.join(root, 'web', 'build', 'mha-core.js');
  const out = { file: path.relative(root, file) };
  try {
    const bytes = fs.readFileSync(file);
    const st = fs.statSync(file);
    out.size = bytes.length;
    out.mtime = st.mtime.toISOString().replace(/\.\d+Z$/, 'Z');
    out.sha = crypto.createHash('sha256').update(bytes).digest('hex').slice(0, 12);
  } catch {
    out.missing = true;
  }
  const cache = readOr(path.join(root, 'build', 'wasm', 'CMakeCache.txt'));
  const pick = (key) => {
    const m = new RegExp(`^${key}:[A-Z]+=(.*)$`, 'm').exec(cache);
    return m ? m[1] : '';
  };
  out.buildType = pick('CMAKE_BUILD_TYPE');
  out.simdFlags = pick('MHA_SIMD_FLAGS');
  out.emcc = (run('emcc', ['--version']).split('\n')[0] || '').replace(/^emcc \(.*?\)\s*/, 'emcc ').replace(/\s*\(\)$/, '');
  out.git = run('git', ['rev-parse', '--short', 'HEAD'], root);
  const dirty = run('git', ['status', '--porcelain', '--', 'cpp', 'CMakeLists.txt', 'CMakePresets.json'], root);
  out.cppDirty = dirty ? dirty.split('\n').length : 0;
  return out;
}

function describeMachine(root) {
  const b = coreBuild(root);
  const lines = [];
  lines.push(`machine   ${cpuModel()} · ${os.cpus().length} logical CPUs (${cpuFlags() || 'no x86 SIMD flags'}) · ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB · load avg ${loadAverage()}`);
  lines.push(`node      ${process.version} · V8 ${process.versions.v8} · ${process.platform}-${process.arch}`);
  if (b.missing) {
    lines.push(`core      ${b.file} is missing: npm run build:wasm`);
  } else {
    const cfg = [b.buildType && `${b.buildType}`, b.simdFlags && `MHA_SIMD_FLAGS="${b.simdFlags}"`, b.emcc].filter(Boolean).join(', ');
    const src = b.git ? `git ${b.git}${b.cppDirty ? ` + ${b.cppDirty} uncommitted change(s) under cpp/` : ''}` : '';
    lines.push(`core      ${b.file} ${(b.size / 1024).toFixed(0)} KiB, built ${b.mtime}, sha256 ${b.sha}${cfg ? ` · ${cfg}` : ''}${src ? ` · ${src}` : ''}`);
  }
  return lines;
}

module.exports = { describeMachine, cpuModel, loadAverage };

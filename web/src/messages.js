// The core's error messages are English; these patterns give each one a Chinese version.
const ZH = [
  [/^d_model (\d+) is not divisible by heads (\d+).*$/, 'd_model $1 不能被 heads $2 整除：每个头要分到 d_model / heads 维'],
  [/^heads (\d+) is not divisible by kv_heads (\d+).*$/, 'heads $1 不能被 kv_heads $2 整除：每个 K/V 头必须服务相同数量的查询头'],
  [/^d_model must be between 1 and (\d+), got (.+)$/, 'd_model 必须在 1 到 $1 之间，当前为 $2'],
  [/^heads must be between 1 and (\d+), got (.+)$/, 'heads 必须在 1 到 $1 之间，当前为 $2'],
  [/^kv_heads must be between 1 and heads \((\d+)\), got (.+)$/, 'kv_heads 必须在 1 到 heads（$1）之间，当前为 $2'],
  [/^seed must be between 0 and (\d+), got (.+)$/, '种子必须在 0 到 $1 之间，当前为 $2'],
  [/^dModel must be a whole number$/, 'd_model 必须是整数'],
  [/^heads must be a whole number$/, 'heads 必须是整数'],
  [/^kvHeads must be a whole number$/, 'kv_heads 必须是整数'],
  [/^seed must be a whole number$/, '种子必须是整数'],
  [/^text is empty.*$/, '文本为空：请至少输入一个字或一个词'],
  [/^text is (\d+) bytes; the maximum is (\d+)$/, '文本有 $1 字节，最多允许 $2 字节'],
  [/^text has (\d+) tokens; the maximum is (\d+)$/, '文本有 $1 个 token，最多允许 $2 个'],
  [/^text is not valid UTF-8.*$/, '文本不是有效的 UTF-8'],
];
const EN = [
  [/^dModel must/, 'd_model must'],
  [/^kvHeads must/, 'kv_heads must'],
];

export function localMessage(message, lang) {
  const table = lang === 'zh' ? ZH : EN;
  for (const [re, out] of table) if (re.test(message)) return message.replace(re, out);
  return message;
}

// Which control a core error belongs to; `changed` is the control the learner just touched.
export function fieldFor(message, phase, changed) {
  if (phase === 'layer' || phase === 'switchedOff' || phase === 'model') return phase;
  if (phase === 'text' || /^text/.test(message)) return 'text';
  if (/^seed/.test(message)) return 'seed';
  if (/^dModel|^d_model must/.test(message)) return 'dModel';
  if (/is not divisible by heads/.test(message)) return changed === 'dModel' ? 'dModel' : 'heads';
  if (/is not divisible by kv_heads|^kv_heads|^kvHeads/.test(message)) return changed === 'heads' ? 'heads' : 'kvHeads';
  if (/^heads/.test(message)) return 'heads';
  return changed && changed !== 'causal' ? changed : 'text';
}

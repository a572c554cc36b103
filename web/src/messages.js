// What the page says about a core error, and where. A core error about a setting or the text comes
// as {message, field, code, params} (web/mha.js MhaError, cpp/core/base/error.h): its code picks the
// sentence and its params fill it, in either language, and its field picks the control it is shown
// next to. A message the page wrote itself (a failed fetch, say) is a plain string, shown as it is.

// How each setting is named in a sentence.
const NAMES = {
  zh: {
    d_model: 'd_model', heads: 'heads', kv_heads: 'kv_heads', seed: '种子', vocab_size: '词表大小', layers: '层数',
    model: '模型', kv_dim: 'K/V 宽度（kv_heads · d_head）', max_positions: '位置数',
    tokens: '新 token 数', temperature: '温度', top_k: 'top-k', top_p: 'top-p',
  },
};

// The core's errors in Chinese, by code (cpp/core/base/error_codes.h declares each code with its
// English sentence, which is the core's own message; tests/node/catalog.test.js checks every code
// has a sentence here, with the same {names}). {name} is the setting, from NAMES.
export const SENTENCES = {
  zh: {
    not_a_number: '{name} 必须是数字',
    not_whole: '{name} 必须是整数',
    out_of_range: '{name} 必须在 {min} 到 {max} 之间，当前为 {value}',
    d_model_not_divisible: 'd_model {d_model} 不能被 heads {heads} 整除：每个头要分到 d_model / heads 维',
    heads_not_divisible: 'heads {heads} 不能被 kv_heads {kv_heads} 整除：每个 K/V 头必须服务相同数量的查询头',
    kv_heads_range: 'kv_heads 必须在 1 到 heads（{heads}）之间，当前为 {value}',
    rope_odd_d_head: 'RoPE 把每个头的维度两两配对来旋转，所以 d_head 必须是偶数；d_model {d_model} / heads {heads} = {d_head}',
    fixed_by_weights: '{name} 由载入的权重决定（{value}）：请载入别的文件，或换回随机权重',
    no_such_head: '没有可以关掉的头 {layer}.{head}：层号是 0 到 {last_layer}，头号是 0 到 {last_head}',
    text_empty: '文本为空：请至少输入一个字或一个词',
    text_too_long: '文本有 {bytes} 字节，最多允许 {max} 字节',
    text_too_many_tokens: '文本有 {tokens} 个 token，最多允许 {max} 个',
    text_not_utf8: '文本不是有效的 UTF-8：位置 {offset} 处出错（{what}）',
    text_too_many_different: '文本里不同的 token 超过 {max} 种：这个模型的词表只有 {vocab} 个 id，分不开更多',
    too_many_positions: '{tokens} 个 token，但这个模型只有 {max} 个位置',
    generate_past_positions: '文本的 {prompt} 个 token 加上 {new} 个新 token 共 {total} 个，但这个模型只有 {max} 个位置',
    token_outside_vocabulary: '位置 {position} 的 token id {id} 超出了词表 [0, {vocab})',
    needs_tokenizer: '{model} 模型要用它自己的分词器读文本：请给出它的分词器文件，或直接给 token id',
    tokenizer_vocab_mismatch: '分词器有 {tokenizer} 个 id，而模型的词表只有 {vocab} 个：它们不是一套',
    tokenizer_bad_file: '分词器文件 {file} 有误：{why}',
    tokenizer_missing: '“{dir}”里没有分词器：需要 encoder.json 或 vocab.json，加上 vocab.bpe 或 merges.txt，或者 tokenizer.json',
    tokenizer_not_byte_level: '{file} 里没有字节 {byte}（写作“{spelled}”）的 token：它不是 GPT-2 那样的字节级 BPE 词表',
  },
};

export const messageOf = (error) => (typeof error === 'string' ? error : error.message);

export function localMessage(error, lang) {
  if (typeof error === 'string' || !error.code) return messageOf(error);
  const sentence = (SENTENCES[lang] || {})[error.code];
  if (!sentence) return error.message;
  const vars = { ...error.params, name: (NAMES[lang] || {})[error.field] || error.params.name || error.field };
  return sentence.replace(/\{(\w+)\}/g, (m, key) => (key in vars ? String(vars[key]) : m));
}

// The settings key whose control shows a core error; `changed` is the control the learner just
// touched (d_model 10 with heads 4 is d_model's fault when d_model was changed, heads' otherwise).
const KEY_OF_FIELD = { model: 'model', d_model: 'dModel', heads: 'heads', kv_heads: 'kvHeads', seed: 'seed', text: 'text', switched_off: 'switchedOff' };

export function fieldFor(error, phase, changed) {
  if (phase === 'layer' || phase === 'switchedOff' || phase === 'model') return phase;
  if (error.code === 'd_model_not_divisible') return changed === 'dModel' ? 'dModel' : 'heads';
  if (error.code === 'heads_not_divisible' || error.code === 'kv_heads_range') return changed === 'heads' ? 'heads' : 'kvHeads';
  if (error.field && KEY_OF_FIELD[error.field]) return KEY_OF_FIELD[error.field];
  if (phase === 'text') return 'text';
  return changed && changed !== 'causal' ? changed : 'text';
}

// A core error as the store keeps it: with its code when it has one, else its message.
export const storedError = (e) => (e.code ? { message: e.message, field: e.field, code: e.code, params: e.params } : e.message);

// What the page says about a core error, and where. A core error about a setting, the text or a file comes
// as {message, field, code, params} (web/mha.js MhaError, cpp/core/base/error.h): its code picks the
// sentence and its params fill it, in either language, and its field picks the control it is shown
// next to. A message the page writes itself (a failed fetch, a file to open again) is {key, params},
// a sentence of strings.js; a plain string is shown as it is.
import { t } from './i18n.js';

// How each setting is named in a sentence.
const NAMES = {
  zh: {
    d_model: 'd_model', heads: 'heads', kv_heads: 'kv_heads', seed: '种子', vocab_size: '词表大小', layers: '层数',
    model: '模型', kv_dim: 'K/V 宽度（kv_heads · d_head）', max_positions: '位置数', batch: '批大小',
    min_length: '最短重复长度', max_length: '最长重复长度', sequences: '序列数',
    tokens: '新 token 数', temperature: '温度', top_k: 'top-k', top_p: 'top-p',
  },
};

// A file the core was given without its name is "the file" (cpp/core/io/safetensors.h kUnnamedFile).
const UNNAMED_FILE = { zh: '该文件' };

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
    induction_needs_two_layers: '归纳任务至少需要 2 层：一层找到前一个 token，一层复制它后面的那个；当前为 {value}',
    training_too_large: '以每批 {batch} × {tokens} 个 token 训练大约需要 {needed} MB 内存；上限是 {max} MB',
    run_not_finite: '这次运行的数值溢出了：{tensor} 里有不是有限数的值（权重或输入对 float32 来说太大）',
    file_not_found: '{file}：没有这个文件',
    file_is_directory: '{file} 是一个目录，不是文件',
    file_unreadable: '{file}：无法读取（{why}）',
    file_too_large: '{file} 有 {bytes} 字节；最多只读 {max} 字节',
    file_too_long: '{file} 超过了 {max} 字节，这是从管道或设备最多读取的量',
    safetensors_too_short: '{file} 只有 {bytes} 字节：不够一个 safetensors 文件开头的 8 字节头部长度',
    safetensors_header_past_end: '{file}：头部长度 {length} 超出了这个 {size} 字节文件的结尾（文件被截断了吗？）',
    safetensors_header_too_large: '{file}：头部长度 {length} 超过了上限 {max} 字节',
    safetensors_header_not_json: '{file}：头部不是有效的 JSON（第 {byte} 字节处）',
    safetensors_number_too_large: '{file}：头部有一个大到无法读取的数：{number}',
    safetensors_header_not_object: '{file}：头部是 JSON，但不是对象',
    safetensors_key_twice: '{file}：头部两次出现“{key}”，无法判断用哪一个',
    safetensors_metadata_not_object: '{file}：__metadata__ 不是对象',
    safetensors_metadata_not_string: '{file}：元数据“{key}”不是字符串',
    tensor_not_object: '{file}：张量“{tensor}”不是 JSON 对象',
    tensor_no_dtype: '{file}：张量“{tensor}”没有字符串类型的 "dtype"',
    tensor_no_shape: '{file}：张量“{tensor}”没有 "shape" 数组',
    tensor_no_offsets: '{file}：张量“{tensor}”没有 [起点, 终点] 形式的 "data_offsets"',
    tensor_bad_shape: '{file}：张量“{tensor}”的形状里有不是非负整数的项',
    tensor_shape_too_large: '{file}：张量“{tensor}”的形状大得不可能',
    tensor_bad_offsets: '{file}：张量“{tensor}”的 data_offsets 不是非负整数',
    tensor_outside_data: '{file}：张量“{tensor}”的 data_offsets [{begin}, {end}] 超出了 {size} 字节的数据区（文件被截断了吗？）',
    tensor_byte_count: '{file}：张量“{tensor}”有 {bytes} 字节，但 {dtype} 类型、形状 {shape} 需要 {needed} 字节',
    tensors_overlap: '{file}：张量“{first}”和“{second}”共用数据区的第 {begin} 到 {end} 字节',
    tensor_missing: '{file} 里没有张量“{tensor}”',
    tensor_not_float: '{file}：张量“{tensor}”的类型是 {dtype}；应为 F32、F16 或 BF16',
    tensor_not_int: '{file}：张量“{tensor}”的类型是 {dtype}；应为 I64 或 I32',
    tensor_wrong_shape: '{file}：张量“{tensor}”的形状是 {shape}；应为 {expected}',
    tensor_nan: '{file}：张量“{tensor}”在展平后的第 {index} 个位置是 NaN',
    tensor_infinite: '{file}：张量“{tensor}”在展平后的第 {index} 个位置是无穷大',
    layout_unknown: '{file}：看不出它的布局：c_attn.weight（GPT-2）、q_proj.weight（Llama）、in_proj_weight（PyTorch）一个都没有',
    file_is_one_layer: '{file} 只有一个 {layout} 注意力层，不是完整模型：请把它作为权重载入',
    model_no_token_table: '{file} 里没有词嵌入表：找过“wte.weight”和“transformer.wte.weight”',
    model_bad_block_name: '{file}：张量“{tensor}”的名字不是 {prefix}N.… 的形式（N 是块的编号）',
    model_no_blocks: '{file} 里没有任何块：找过“{tensor}”',
    model_block_missing: '{file} 有第 {last} 块，却没有第 {missing} 块的任何张量（“{prefix}{missing}.…”）',
    model_over_limit: '{file}：{size} 是 {value}，超过了上限 {max}',
    model_no_heads: '{file} 没有说明每层有几个头：请给出头数（GPT-2 small 是 12），或它的 config.json（n_head）',
    config_not_object: '{file} 不是像 Hugging Face 的 config.json 那样的 JSON 对象（{"n_head": 12, …}）',
    config_bad_size: '{file}：{key} 必须是至少为 1 的整数，实际是 {value}',
    config_heads_disagree: '{file} 说 n_head 是 {heads}，但 {model} 的 __metadata__ 说 heads 是 {value}：请给出头数来选择',
    config_other_model: '{file} 说 {key} 是 {said}，但 {model} 中是 {value}：它们不是同一个模型的文件',
    metadata_bad_heads: '{file}：__metadata__ 里的 heads 是“{value}”，不是 1 到 {max} 之间的整数',
    metadata_bad_recall: '{file}：__metadata__ 说任务是 recall，但其中的 recall 是“{value}”，不是 1 到 {max} 之间的读出个数',
    metadata_bad_rope_theta: '{file}：__metadata__ 里的 rope_theta 是“{value}”；应为正数，例如 10000',
    layer_not_found: '{file} 里没有第 {layer} 层的 {layout} 注意力权重：找过 {looked}',
    kv_rows_not_multiple: '{file}：K 投影有 {rows} 行，不是 d_head {d_head} 的整数倍',
    kv_heads_file_mismatch: 'kv_heads 是 {kv_heads}，但 {file} 的 K 投影有 {rows} 行 = {file_kv_heads} 个 d_head 为 {d_head} 的头',
    needs_blocks: 'logit 归因、头的重要性和剪枝都需要一个预测下一个 token 的模型（attn-only 或 gpt2），而不是单独一层注意力',
    needs_next_token: 'logit 归因、头的重要性、剪枝和生成都需要一个预测下一个 token 的模型；这个模型预测的是每个位置之前的 {readouts} 个 token（回忆任务）',
    position_outside_text: '位置 {position} 不在文本里：位置是 0 到 {last}',
    tokenizer_vocab_mismatch: '分词器有 {tokenizer} 个 id，而模型的词表只有 {vocab} 个：它们不是一套',
    tokenizer_missing: '“{dir}”里没有分词器：需要 encoder.json 或 vocab.json，加上 vocab.bpe 或 merges.txt，或者 tokenizer.json',
    tokenizer_not_byte_level: '{file} 里没有字节 {byte}（写作“{spelled}”）的 token：它不是 GPT-2 那样的字节级 BPE 词表',
    tokenizer_not_json: '{file}：不是有效的 JSON（第 {byte} 字节处）',
    tokenizer_number_too_large: '{file}：有一个大到无法读取的数：{number}',
    tokenizer_key_twice: '{file}：“{key}”出现了两次，无法判断用哪一个',
    tokenizer_vocab_not_object: '{file}：词表不是非空的“token: id”对象',
    tokenizer_empty_token: '{file}：词表里有一个空 token',
    tokenizer_id_not_whole: '{file}：{token} 的 id 不是整数',
    tokenizer_id_range: '{file}：{token} 的 id 是 {id}，超出了 0 到 {max}',
    tokenizer_id_twice: '{file}：id {id} 同时分给了 {first} 和 {second}',
    tokenizer_bad_merge_line: '{file}：第 {line} 行不是用空格隔开的两个 token：{text}',
    tokenizer_merge_line_unknown: '{file}：第 {line} 行：{merge} 需要 {token}，但词表里没有它',
    tokenizer_no_model: '{file}：没有 "model" 对象',
    tokenizer_not_bpe: '{file}：model.type 不是 "BPE"',
    tokenizer_no_vocab_merges: '{file}：model 需要 "vocab" 和一个 "merges" 数组',
    tokenizer_bad_merge: '{file}：model.merges[{index}] 既不是 "a b" 也不是 ["a", "b"]',
    tokenizer_merge_unknown: '{file}：model.merges[{index}]：{merge} 需要 {token}，但词表里没有它',
  },
};

// The page's own message: a sentence of strings.js by key; cause, a core error (or another message)
// that fills its {why} in the same language.
export const pageMessage = (key, params = {}, cause = null) => (cause === null ? { key, params } : { key, params, cause });
const paramsOf = (error, lang) => (error.cause ? { ...error.params, why: localMessage(error.cause, lang) } : error.params);

// In English (an `error` event's detail, el.ready's rejection).
export const messageOf = (error) => (typeof error === 'string' ? error : error.key ? t('en', error.key, paramsOf(error, 'en')) : error.message);

export function localMessage(error, lang) {
  if (typeof error !== 'string' && error.key) return t(lang, error.key, paramsOf(error, lang));
  if (typeof error === 'string' || !error.code) return messageOf(error);
  const sentence = (SENTENCES[lang] || {})[error.code];
  if (!sentence) return error.message;
  const vars = { ...error.params, name: (NAMES[lang] || {})[error.field] || error.params.name || error.field };
  if (vars.file === 'the file' && UNNAMED_FILE[lang]) vars.file = UNNAMED_FILE[lang];
  return sentence.replace(/\{(\w+)\}/g, (m, key) => (key in vars ? String(vars[key]) : m));
}

// The settings key whose control shows a core error; `changed` is the control the learner just
// touched (d_model 10 with heads 4 is d_model's fault when d_model was changed, heads' otherwise).
const KEY_OF_FIELD = { model: 'model', d_model: 'dModel', heads: 'heads', kv_heads: 'kvHeads', seed: 'seed', text: 'text', switched_off: 'switchedOff' };

export function fieldFor(error, phase, changed) {
  if (phase === 'layer' || phase === 'switchedOff' || phase === 'model' || phase === 'ids') return phase;
  if (error.code === 'd_model_not_divisible') return changed === 'dModel' ? 'dModel' : 'heads';
  if (error.code === 'heads_not_divisible' || error.code === 'kv_heads_range') return changed === 'heads' ? 'heads' : 'kvHeads';
  if (error.field && KEY_OF_FIELD[error.field]) return KEY_OF_FIELD[error.field];
  if (phase === 'text') return 'text';
  return changed && changed !== 'causal' ? changed : 'text';
}

// A core error as the store keeps it: the page's sentence, or with its code when it has one, else its message.
export const storedError = (e) => e.page || (e.code ? { message: e.message, field: e.field, code: e.code, params: e.params } : e.message);

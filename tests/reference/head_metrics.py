#!/usr/bin/python3
"""Reference head metrics (cpp/core/analysis/head_metrics.h) and head types of real text (head_types.h),
written out with numpy from their definitions.

Run from the repository root:

    /usr/bin/python3 tests/reference/head_metrics.py

Reads the attention weights of committed reference traces, makes two synthetic maps from fixed seeds (a
"poem" and a bidirectional "sentence", for the half-lines and parts of speech the traces' ids never show),
and writes tests/reference/data/head_metrics.expected.json: for each case, the ids used, the vocabulary
facts used ("facts": rarity, tags as WordTag integers, half_line_end per id; made up by facts_of, since
the traces' models have no vocabulary), the synthetic cases' weights (heads, T, T), and per layer every
head's metrics with their chances, its offset profile, its label and the head similarity matrix (null
where no row qualifies). The C++ test builds its TokenFacts from "facts" and reads "weights" where a
case has them; it also checks the labels against a hand-written list.
"""

import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_model import read_safetensors as read  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")
COMMAND = "/usr/bin/python3 tests/reference/head_metrics.py"


def mean(values):
    return float(np.mean(values)) if values else None


# The head types of real text (cpp/core/analysis/head_types.h) and the measures that carry a chance.
TYPED = ["rare_word", "noun_article", "noun_adjective", "verb_subject", "parallel_line"]
CHANCE = ["previous_token", "induction", "first_token", "offset_weight"] + TYPED
OFFSET_PROFILE = 16  # kOffsetProfile: the profile's last k

# WordTag in cpp/core/text/vocab_tokenizer.h, in its order.
OTHER, DET, ADJ, NOUN, PRON_SUBJ, PRON, VERB, PUNCT = range(8)


def typed_mean(rows):
    """rows: (measure, chance) per qualifying row -> the two means, None when no row qualifies."""
    return mean([m for m, _ in rows]), mean([c for _, c in rows])


def rare_word(a, ids, allowed, rarity):
    """Rows i >= 1 with a ranked token in view (j <= i, a bidirectional row too): the share of the row's
    strongest keys (over the n_i positions it may attend to) that hold the rarest token in view. A tie for
    strongest shares the row's one count among the tied keys, so a head that spreads its weight evenly
    scores |rarest| / n_i: its chance."""
    rows = []
    for i in range(1, len(ids)):
        view = range(i + 1)
        ranks = [rarity[ids[j]] for j in view]
        if max(ranks) < 0:
            continue  # nothing ranked in view: <unk> and the specials only
        rarest = {j for j in view if ranks[j] == max(ranks)}
        strongest = {j for j in range(allowed[i]) if a[i, j] == a[i, :allowed[i]].max()}
        rows.append((len(strongest & rarest) / len(strongest), len(rarest) / allowed[i]))
    return typed_mean(rows)


def backward_link(a, ids, allowed, tags, row_tags, key_tags, reach):
    """Rows whose token's tag is in row_tags and that have a key_tags token at i - reach ... i - 1: the weight
    on the nearest one; chance 1 / n_i. Rows without such a token do not qualify."""
    rows = []
    for i in range(len(ids)):
        if tags[ids[i]] not in row_tags:
            continue
        keys = [j for j in range(max(0, i - reach), i) if tags[ids[j]] in key_tags]
        if keys:
            rows.append((a[i, max(keys)], 1 / allowed[i]))
    return typed_mean(rows)


def half_lines(ids, half_line_end):
    """The half-lines: maximal runs of tokens that end no half-line, as [start, end), the sequence's ends
    included (a run a window cut is as long as its neighbour only by chance)."""
    runs, start = [], None
    for i, token in enumerate(ids):
        if half_line_end[token]:
            if start is not None:
                runs.append((start, i))
            start = None
        elif start is None:
            start = i
    if start is not None:
        runs.append((start, len(ids)))
    return runs


def parallel_line(a, ids, allowed, half_line_end):
    """For each character of a half-line whose previous half-line is as long (4 to 9) with 1 or 2 marks
    between them, the row that predicts it (the one before it) on its place one half-line back; chance 1 / n_i."""
    rows = []
    runs = half_lines(ids, half_line_end)
    for (s0, e0), (s1, e1) in zip(runs, runs[1:]):
        L, gap = e1 - s1, s1 - e0
        if e0 - s0 == L and 4 <= L <= 9 and gap <= 2:
            rows += [(a[s1 + k - 1, s0 + k], 1 / allowed[s1 + k - 1]) for k in range(L)]
    return typed_mean(rows)


def head_types(a, ids, allowed, facts):
    """The typed measures and their chances (null without the facts they read), and the offset profile."""
    T = len(ids)
    out = {"offset_profile": [mean([a[i, i - k] for i in range(k, T)]) for k in range(min(OFFSET_PROFILE, T - 1) + 1)]}
    facts = facts or {}
    found = {name: (None, None) for name in TYPED}
    if facts.get("rarity"):
        found["rare_word"] = rare_word(a, ids, allowed, facts["rarity"])
    if facts.get("tags"):
        tags = facts["tags"]
        found["noun_article"] = backward_link(a, ids, allowed, tags, {NOUN}, {DET}, 6)
        found["noun_adjective"] = backward_link(a, ids, allowed, tags, {NOUN}, {ADJ}, 3)
        found["verb_subject"] = backward_link(a, ids, allowed, tags, {VERB}, {NOUN, PRON_SUBJ}, 6)
    if facts.get("half_line_end"):
        found["parallel_line"] = parallel_line(a, ids, allowed, facts["half_line_end"])
    for name, (value, chance) in found.items():
        out[name], out[name + "_chance"] = value, chance
    return out


def metrics(a, ids, causal, facts):
    """a: (T, T) one head's weights; facts: what the vocabulary says of each id (below), or None."""
    a = a.astype(np.float64)
    T = a.shape[0]
    allowed = [i + 1 if causal else T for i in range(T)]
    if T < 2:
        return dict(dict.fromkeys(["entropy", "self", "previous_token", "first_token", "locality", "distance",
                                   "distance_normalised", "induction", "duplicate_token", "offset", "offset_weight"]
                                  + TYPED + [k + "_chance" for k in CHANCE]), offset_profile=[])
    entropy, dist, uniform = [], [], []
    for i in range(1, T):
        n = allowed[i]
        row = a[i, :n]
        h = -sum(p * math.log(p) for p in row if p > 0)
        if n > 1:
            entropy.append(h / math.log(n))
        dist.append(sum(row[j] * abs(i - j) for j in range(n)))
        uniform.append(sum(abs(i - j) for j in range(n)) / n)
    induction, induction_chance, duplicate = [], [], []
    for i in range(T):
        m = [j for j in range(1, i) if ids[j - 1] == ids[i]]
        d = [j for j in range(i) if ids[j] == ids[i]]
        if m:
            induction.append(sum(a[i, j] for j in m))
            induction_chance.append(len(m) / allowed[i])
        if d:
            duplicate.append(sum(a[i, j] for j in d))
    stripes = [(float(np.mean([a[i, i - d] for i in range(d, T)])), d) for d in range(1, T // 2 + 1)]
    best = max(stripes, key=lambda s: (s[0], -s[1]))  # the largest mean; the smallest d among equals
    chance = {  # uniform attention puts 1 / n_i on every position: on the one each of these reads too
        "previous_token_chance": mean([1 / allowed[i] for i in range(1, T)]),
        "induction_chance": mean(induction_chance),
        "first_token_chance": mean([1 / allowed[i] for i in range(1, T)]),
        "self_chance": mean([1 / allowed[i] for i in range(1, T)]),
        "offset_weight_chance": mean([1 / allowed[i] for i in range(best[1], T)]),
    }
    return {
        **chance,
        **head_types(a, ids, allowed, facts),
        "offset": float(best[1]),
        "offset_weight": best[0],
        "entropy": mean(entropy),
        "self": mean([a[i, i] for i in range(1, T)]),
        "previous_token": mean([a[i, i - 1] for i in range(1, T)]),
        "first_token": mean([a[i, 0] for i in range(1, T)]),
        "locality": mean([sum(a[i, j] for j in range(T) if abs(i - j) <= 3) for i in range(T)]),
        "distance": mean(dist),
        "distance_normalised": float(np.sum(dist) / np.sum(uniform)) if sum(uniform) > 0 else None,
        "induction": mean(induction),
        "duplicate_token": mean(duplicate),
    }


def similarity(a, b, causal):
    T = a.shape[0]
    out = []
    for i in range(1, T):
        n = i + 1 if causal else T
        p = 0.001 / n + 0.999 * a[i, :n].astype(np.float64)
        q = 0.001 / n + 0.999 * b[i, :n].astype(np.float64)
        m = 0.5 * (p + q)
        js = 0.5 * np.sum(p * np.log2(p / m)) + 0.5 * np.sum(q * np.log2(q / m))
        out.append(1.0 - min(1.0, max(0.0, js)))
    return mean(out)


# head_label_rules() in cpp/core/analysis/head_metrics.cpp, in its order: (label, metric, at least, and at least
# this multiple of the metric's chance; 0: no such condition).
LABEL_RULES = [
    ("previous_token", "previous_token", 0.5, 2),
    ("induction", "induction", 0.5, 5),
    ("parallel_line", "parallel_line", 0.15, 5),
    ("noun_article", "noun_article", 0.3, 5),
    ("verb_subject", "verb_subject", 0.3, 5),
    ("noun_adjective", "noun_adjective", 0.3, 5),
    ("rare_word", "rare_word", 0.2, 5),
    ("self", "self", 0.5, 2),
    ("first_token", "first_token", 0.5, 2),
    ("positional", "offset_weight", 0.25, 5),
    ("broad", "entropy", 0.9, 0),
]


def reaches(m, metric, at_least, times_chance):
    if m[metric] is None or m[metric] < at_least:
        return False
    return times_chance == 0 or (m[metric + "_chance"] is not None and m[metric] >= times_chance * m[metric + "_chance"])


def strongest(m):
    """The type m is most like: of the rules whose metric has a chance, the one whose measure is the greatest
    multiple of its chance (the first on a tie), else None."""
    best, ratio = None, 0.0
    for label, metric, _, _ in LABEL_RULES:
        chance = m.get(metric + "_chance")
        if m[metric] is not None and chance is not None and chance > 0 and m[metric] / chance > ratio:
            best, ratio = label, m[metric] / chance
    return best


def with_label(m):
    """m plus its label: the first rule whose metric reaches its threshold (and multiple of chance), else "mixed";
    and the type it is most like."""
    label = next((rule[0] for rule in LABEL_RULES if reaches(m, *rule[1:])), "mixed")
    return dict(m, label=label, strongest=strongest(m))


def analyse(weights, ids, causal, facts):
    """weights: (heads, T, T)."""
    H = weights.shape[0]
    return {
        "heads": [with_label(metrics(weights[h], ids, causal, facts)) for h in range(H)],
        "similarity": [[similarity(weights[h], weights[g], causal) for g in range(H)] for h in range(H)],
    }


def facts_of(ids):
    """Synthetic but deterministic vocabulary facts for ids 0 ... max(ids) (TokenFacts in head_types.h):
    rarity[id] = id, except ids 0, 1, 2 (<unk>, <eos> and a special: not ranked, -1); the tags cycle through
    WordTag as (id + 1) % 8, which puts nouns after dets, adjectives and subjects within reach in the traces'
    ids; a half-line ends at ids divisible by 113 (0 and 113: tiny_attn_only has 113 at positions 4 and 9,
    4 + 4 with the first from the sequence's start, which may be cut: no row). No rule of that kind gives the
    traces' 12 ids a whole couplet (a mark, 4, a mark, 4, a mark); synthetic_poem has them."""
    V = max(ids) + 1
    return {
        "rarity": [v if v >= 3 else -1 for v in range(V)],
        "tags": [(v + 1) % 8 for v in range(V)],
        "half_line_end": [int(v % 113 == 0) for v in range(V)],
    }


def rounded(x):
    """A weight as the file keeps it (6 significant digits); both sides read these, not numpy's floats."""
    return float("%.6g" % x)


def softmax_rows(logits, causal):
    T = logits.shape[0]
    a = np.zeros((T, T))
    for i in range(T):
        n = i + 1 if causal else T
        e = np.exp(logits[i, :n] - logits[i, :n].max())
        a[i, :n] = e / e.sum()
    return np.vectorize(rounded)(a)


def rarest_in_view(ids, rarity, n):
    """The positions j < n that hold the highest rank among them ([] when nothing is ranked)."""
    ranks = [rarity[ids[j]] for j in range(n)]
    return [j for j in range(n) if max(ranks) >= 0 and ranks[j] == max(ranks)]


def random_head(rng, ids, rarity, causal):
    """Softmax of random logits, with ties planted for the strongest key: every 5th row ties its rarest token
    with another position, every 5th row from 2 ties two positions that do not hold it."""
    T = len(ids)
    logits = rng.normal(0.0, 2.0, (T, T))
    for i in range(1, T):
        n = i + 1 if causal else T
        rarest = rarest_in_view(ids, rarity, n)
        others = [j for j in range(n) if j not in rarest]
        top = logits[i, :n].max() + 1.0
        if i % 5 == 0 and rarest and others:
            logits[i, rarest[0]] = logits[i, others[-1]] = top
        elif i % 5 == 2 and len(others) >= 2:
            logits[i, others[0]] = logits[i, others[-1]] = top
    return softmax_rows(logits, causal)


def poem_case(rng):
    """A causal "poem" of half-lines whose lengths try every side of the parallel-line rule: 5 + 5 from the
    sequence's start, one mark then 5 (秦川雄帝宅，函谷壮皇居), two marks then 5,
    three marks then 5 (too far), 3 + 3 (too short), 4 + 4, 9 + 9, 10 + 10 (too long), 6 + 6 up to the
    sequence's end. Marks are 113 and 0; it starts on unranked ids (1, 2), and
    the rarest id, 112, comes twice. No tags: a vocabulary of characters."""
    lengths = [5, -1, 5, -2, 5, -3, 5, -1, 3, -1, 3, -1, 4, -1, 4, -1, 9, -1, 9, -1, 10, -1, 10, -1, 6, -1, 6]
    ids = []
    for n in lengths:
        ids += [[113, 0][k % 2] for k in range(-n)] if n < 0 else [int(v) for v in rng.randint(3, 112, n)]
    ids[:2] = [1, 2]
    ids[14] = ids[60] = 112
    return ids, True, {"rarity": facts_of(ids)["rarity"], "tags": [], "half_line_end": facts_of(ids)["half_line_end"]}


def poem_heads(rng, ids, causal, facts):
    """A random head, uniform attention (every key ties), and a head that reads one half-line back where the
    rule applies and the first rarest token in view elsewhere."""
    T = len(ids)
    parallel = {}
    runs = half_lines(ids, facts["half_line_end"])
    for (s0, e0), (s1, e1) in zip(runs, runs[1:]):
        if e0 - s0 == e1 - s1 and 4 <= e1 - s1 <= 9 and s1 - e0 <= 2:
            parallel.update({s1 + k - 1: s0 + k for k in range(e1 - s1)})
    uniform = np.array([[rounded(1 / (i + 1)) if j <= i else 0.0 for j in range(T)] for i in range(T)])
    typed = np.zeros((T, T))
    for i in range(T):
        rarest = rarest_in_view(ids, facts["rarity"], i + 1)
        typed[i, parallel.get(i, rarest[0] if rarest else max(i - 1, 0))] = 1.0
    return [random_head(rng, ids, facts["rarity"], causal), uniform, typed]


def words_case(rng):
    """A bidirectional "sentence" (tags by facts_of: det 8 16 24 32 40, adj 9 17 25, noun 2 10 18 26 34 42,
    subject 11, verb 13 21 29, other 15 23 31): nouns with their det 1, 4 (past a nearer-to-be-missed one),
    6 (the reach) and 7 back (out of reach), an adjective 1, 3 and 4 back, verbs with a noun or a subject
    pronoun nearest and one with none; the rarest id, 42, twice, after the rows that read it. No half-lines:
    a vocabulary of words."""
    ids = [8, 9, 10, 13, 16, 24, 17, 15, 23, 18, 11, 31, 21, 25, 2, 23, 31, 26, 40, 15, 42, 31, 15, 23, 34, 29,
           32, 15, 23, 31, 15, 13, 13, 42, 29]
    return ids, False, {"rarity": facts_of(ids)["rarity"], "tags": facts_of(ids)["tags"], "half_line_end": []}


def words_heads(rng, ids, causal, facts):
    """A random head, one peaked on the rarest token at j <= i (the token a causal head would call rarest;
    not the rarest in a bidirectional row's view), and uniform attention."""
    T = len(ids)
    peaked = rng.normal(0.0, 0.5, (T, T))
    for i in range(T):
        for j in rarest_in_view(ids, facts["rarity"], i + 1):
            peaked[i, j] += 4.0
    uniform = np.array([[rounded(1 / T)] * T for _ in range(T)])
    return [random_head(rng, ids, facts["rarity"], causal), softmax_rows(peaked, causal), uniform]


def compact(value):
    """A list of numbers on one line, or a (heads, T, T) list with a row a line, inside the indented file."""
    if value and isinstance(value[0], list):
        return "[\n" + ",\n".join(compact(row) for row in value) + "\n]"
    return "[" + ",".join("%.6g" % v if isinstance(v, float) else str(v) for v in value) + "]"


def main():
    cases = {}
    for name in ("tiny_attn_only", "tiny_gpt2"):
        meta, t = read(os.path.join(DATA, name + ".expected.safetensors"))
        ids = [int(v) for v in t["ids"][0]]
        facts = facts_of(ids)
        layers = [analyse(t["layers.%d.weights" % l][0], ids, True, facts) for l in range(int(meta["layers"]))]
        cases[name] = {"ids": ids, "causal": True, "facts": facts, "layers": layers}
    for name in ("pytorch_mha", "pytorch_causal"):
        meta, t = read(os.path.join(DATA, name + ".expected.safetensors"))
        w = t["weights"][0]
        T = w.shape[1]
        ids = [i % 3 for i in range(T)]  # repeats, so induction and duplicate-token have rows
        causal = meta["causal"] == "true"
        facts = facts_of(ids)  # ids 0 ... 2: nothing ranked, no nouns or verbs, runs of 2
        cases[name] = {"ids": ids, "causal": causal, "facts": facts, "layers": [analyse(w, ids, causal, facts)]}
    # Maps made here (fixed seeds) for what the traces' ids never show: the file keeps their weights,
    # (heads, T, T), which both this script and the C++ test read back.
    compacted = {}
    for name, seed, make_case, make_heads in (("synthetic_poem", 2019, poem_case, poem_heads),
                                              ("synthetic_words", 2020, words_case, words_heads)):
        rng = np.random.RandomState(seed)
        ids, causal, facts = make_case(rng)
        weights = [h.tolist() for h in make_heads(rng, ids, causal, facts)]
        text = compact(weights)
        compacted["@%s.weights@" % name] = text
        weights = np.array(json.loads(text), dtype=np.float32)  # the weights exactly as written, as float
        cases[name] = {"ids": ids, "causal": causal, "facts": facts, "layers": [analyse(weights, ids, causal, facts)],
                       "weights": "@%s.weights@" % name}
    for name, c in cases.items():  # the facts' lists on one line each
        for key, value in c["facts"].items():
            compacted["@%s.%s@" % (name, key)] = compact(value)
            c["facts"][key] = "@%s.%s@" % (name, key)
    out = {"format_version": "1", "command": COMMAND, "cases": cases}
    text = json.dumps(out, indent=1, sort_keys=True)
    for key, value in compacted.items():
        text = text.replace('"%s"' % key, value)
    with open(os.path.join(DATA, "head_metrics.expected.json"), "w") as f:
        f.write(text + "\n")
    print("wrote %d cases" % len(cases))


if __name__ == "__main__":
    main()

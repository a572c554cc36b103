// Brown's tags → the coarse parts of speech brown.vocab.json's "tags" names. One table, read by
// brown.js (each word's majority vote) and README.md (which repeats it for readers).
'use strict';

// Brown's tag → base tag: a tag is [fw-]base[+base…][-tl|-hl|-nc…][*]. fw- marks a foreign word,
// + joins the tags of a contraction (pps+bez "he's", ppss+md "I'll": the first, the word the
// contraction starts with, decides), -tl a word in a title, -hl in a headline, -nc a cited word,
// and * negation (dod* "didn't", md* "can't"; the tag * alone is "not", "n't"). Two tags in the
// corpus are cut short (fw-in+at-t, ppss+ber-n); taking the part before + drops their stubs.
function brownTagBase(tag) {
  let t = tag.startsWith('fw-') ? tag.slice(3) : tag;
  t = t.split('+')[0];
  for (let s; (s = /-(tl|hl|nc)$/.exec(t)) && s.index > 0;) t = t.slice(0, s.index);
  if (t.length > 1 && t.endsWith('*')) t = t.slice(0, -1);
  return t;
}

// Base tag → coarse part of speech, after the Brown Corpus Manual (Francis & Kučera 1964/1979).
// Anything not listed is "other".
//   det        at article (the, a, no), ap post-determiner (many, next), abn pre-quantifier (all,
//              half), abx pre-quantifier (both), dt singular determiner (this), dti singular or
//              plural determiner (some, any), dts plural determiner (these), dtx determiner /
//              double conjunction (either), ap$ and dt$ their possessives (other's, another's).
//              Not abl (pre-qualifier: quite, rather, such): the manual groups it with the
//              qualifiers. Not wdt (which, what): mostly the relative pronoun in Brown.
//   adj        jj, jj$, jjr comparative, jjs semantically superlative (chief, top), jjt superlative.
//   noun       nn, nn$, nns, nns$, np proper, np$, nps, nps$, nr adverbial noun (home, today,
//              west), nr$, nrs.
//   pron_subj  pps (he, she, it, one), ppss (I, we, they, you): the nominative personal pronouns.
//   pron       the other personal pronouns: pp$ (my), pp$$ (mine), ppl (myself), ppls
//              (ourselves), ppo (me, him, them); and pn, pn$, the manual's "nominal pronoun"
//              (nothing, everyone, one's). Wh-pronouns (wps, wpo, wp$) stay "other" with wdt.
//   verb       vb, vbd, vbg, vbn, vbz; be, bed, bedz, beg, bem, ben, ber, bez; do, dod, doz;
//              hv, hvd, hvg, hvn, hvz; md modal. Negated forms (dod*, md*, bez* …) too.
//   punct      . (also ? ! ;), , : ( ) `` '' ' --
//   other      abl, cc, cd, cs, ex, in, od, ql, qlp, rb, rbr, rbt, rn, rp, to, uh, wdt, wp$,
//              wpo, wps, wql, wrb, * (not), nil (NLTK's tag for a few untagged tokens), and the
//              possessives cd$, rb$.
const COARSE = {
  det: ['at', 'ap', 'ap$', 'abn', 'abx', 'dt', 'dt$', 'dti', 'dts', 'dtx'],
  adj: ['jj', 'jj$', 'jjr', 'jjs', 'jjt'],
  noun: ['nn', 'nn$', 'nns', 'nns$', 'np', 'np$', 'nps', 'nps$', 'nr', 'nr$', 'nrs'],
  pron_subj: ['pps', 'ppss'],
  pron: ['pp$', 'pp$$', 'ppl', 'ppls', 'ppo', 'pn', 'pn$'],
  verb: ['vb', 'vbd', 'vbg', 'vbn', 'vbz', 'be', 'bed', 'bedz', 'beg', 'bem', 'ben', 'ber', 'bez',
    'do', 'dod', 'doz', 'hv', 'hvd', 'hvg', 'hvn', 'hvz', 'md'],
  punct: ['.', ',', ':', '(', ')', '``', "''", "'", '--'],
};
const COARSE_OF_BASE = Object.fromEntries(
  Object.entries(COARSE).flatMap(([coarse, bases]) => bases.map((b) => [b, coarse])));

function brownTagCoarse(tag) {
  return COARSE_OF_BASE[brownTagBase(tag)] || 'other';
}

module.exports = { brownTagBase, brownTagCoarse };

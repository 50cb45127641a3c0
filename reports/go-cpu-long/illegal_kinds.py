"""What a Go model's illegal top-1 moves are, and where in a game they come, on held-out games (teacher-forced, the
move measures' positions: at each move the model's top-1 token over the whole vocabulary, no mask), and how its
captures fare by the number of stones they take. The question for the next lever: does it lose the board as a game
fills (plays on a stone late in the game), or miss the rules' exceptions (suicide, superko)?

    python reports/go-cpu-long/illegal_kinds.py CKPT CORPUS [MOVES]
"""

from __future__ import annotations

import sys
from collections import defaultdict

from gamegrammar.data.corpus import open_corpus
from gamegrammar.evaluation.fidelity import predicted_rows
from gamegrammar.evaluation.stats import wilson_interval
from gamegrammar.games.go.fidelity import exact_groups
from gamegrammar.games.go.grammar import Keyframe, Tick, parse
from gamegrammar.games.go.rules import EMPTY, GoState, attempt, legal_plays, parse_vertex, vertex
from gamegrammar.training.checkpoint import load_checkpoint

BUCKETS = ((0, "moves 1-20"), (20, "21-50"), (50, "51-100"), (100, "101+"))


def main() -> None:
    ckpt, corpus_path = sys.argv[1], sys.argv[2]
    moves_wanted = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
    loaded = load_checkpoint(ckpt)
    model, tok = loaded.model.eval(), loaded.tokenizer
    corpus = open_corpus(corpus_path)
    size = corpus.game.size
    games, ids_list, where = [], [], []
    left = moves_wanted
    for row in corpus.split("val"):
        if left <= 0:
            break
        tokens = corpus.episode_tokens(int(row))
        state, mine = GoState.empty(size), []
        items = iter(parse(tokens, size))
        first = next(items, None)
        if not isinstance(first, Keyframe) or any(c != EMPTY for c in first.board(size)):
            continue
        for item in items:
            if not isinstance(item, Tick) or left <= 0:
                continue
            mine.append((item.positions["move"], state, len(mine)))
            left -= 1
            after = attempt(state, item.move)[1]
            if after is None:
                break
            state = after
        games.append(tokens)
        ids_list.append(corpus.episode_ids(int(row)))
        where.append(mine)
    groups = [exact_groups(t) for t in games]
    wanted = [[p for p, _, _ in m] + [q for _, g in gs for q in g] for m, gs in zip(where, groups)]
    rows = predicted_rows(model, ids_list, wanted)
    kinds: dict[str, int] = defaultdict(int)
    by_bucket: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    total = 0
    for mine, logp in zip(where, rows):
        for p, state, number in mine:
            top = tok.tokens[int(logp[p].argmax())]
            legal = {vertex(q, size) for q in legal_plays(state)} | {"PASS", "RESIGN"}
            name = next(n for lo, n in reversed(BUCKETS) if number >= lo)
            by_bucket[name][0] += top in legal
            by_bucket[name][1] += 1
            total += 1
            if top in legal:
                continue
            try:
                point = parse_vertex(top, size)
            except Exception:
                kinds["not a move"] += 1
                continue
            kinds[attempt(state, point)[0] or "legal?"] += 1
    by_size: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for ids, gs, logp in zip(ids_list, groups, rows):
        for name, at in gs:
            if name != "capture":
                continue
            stones = len(at) - 2
            key = "1 stone" if stones == 1 else "2-3 stones" if stones <= 3 else "4+ stones"
            by_size[key][0] += all(int(logp[q].argmax()) == int(ids[q]) for q in at)
            by_size[key][1] += 1
    print(f"{corpus_path}: {total} moves of {len(games)} held-out games")
    print("| moves | legal top-1 | 95% CI |")
    print("| --- | --- | --- |")
    for _, name in BUCKETS:
        k, n = by_bucket[name]
        if n:
            lo, hi = wilson_interval(k, n)
            print(f"| {name} | {k}/{n} = {k / n:.1%} | [{lo:.1%}, {hi:.1%}] |")
    print("illegal top-1 by the rules' refusal:", dict(kinds))
    print("| capture | exact | 95% CI |")
    print("| --- | --- | --- |")
    for key in ("1 stone", "2-3 stones", "4+ stones"):
        k, n = by_size[key]
        if n:
            lo, hi = wilson_interval(k, n)
            print(f"| {key} | {k}/{n} = {k / n:.1%} | [{lo:.1%}, {hi:.1%}] |")


if __name__ == "__main__":
    main()

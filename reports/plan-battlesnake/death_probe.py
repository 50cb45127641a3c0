"""Does models/battlesnake write snake 0's death after a move into a wall or a body? (issue 49, must-show 3)

`python reports/plan-battlesnake/death_probe.py [CKPT]` (default models/battlesnake): six games of the safe agent
(seed 0, episodes 0-5); at every 7th tick from the 5th to the 40th, each move of snake 0 that the rules say dies (a
wall, its neck, or another body segment that stays) is forced after the real history (`TICK S0 <move>`), and the
model writes 22 more tokens, 8 samples at temperature 1 (torch seed 0). Counted: samples that write `S0 DIE_*`, and
(in the hits design) those whose first words after the input hold a HIT. A planner in the model's dreams can avoid a
death only where its dream writes it. (Until 2026-11-29 it wrote 14 tokens and counted the neck with the bodies.)
"""

import sys
from collections import Counter
from itertools import pairwise

import torch

from gamegrammar.games import load_game
from gamegrammar.games.battlesnake.agents import DIES, safety
from gamegrammar.games.battlesnake.grammar import INPUT_TOKEN
from gamegrammar.games.battlesnake.planning import read_board
from gamegrammar.games.battlesnake.rules import step
from gamegrammar.training.checkpoint import load_checkpoint

SAMPLES, TOKENS = 8, 22


@torch.no_grad()
def continuations(model, tokenizer, prefix: list[str]) -> list[list[str]]:
    x = torch.tensor([tokenizer.encode(prefix)] * SAMPLES)
    out: list[list[str]] = [[] for _ in range(SAMPLES)]
    for _ in range(TOKENS):
        logits = model(x)[0][:, -1]
        nxt = torch.multinomial(torch.softmax(logits, -1), 1)
        for i in range(SAMPLES):
            out[i].append(tokenizer.tokens[int(nxt[i])])
        x = torch.cat([x, nxt], 1)
    return out


def main() -> None:
    torch.set_num_threads(1)
    torch.manual_seed(0)
    loaded = load_checkpoint(sys.argv[1] if len(sys.argv) > 1 else "models/battlesnake")
    game, config, codec = load_game("battlesnake"), loaded.spec.game, loaded.spec.codec
    counts: Counter = Counter()
    for episode in range(6):
        tokens = list(game.play_episode(config, codec, "safe", 0, episode).tokens)
        ticks = [i for i, w in enumerate(tokens) if w == "TICK"]
        for at in ticks[5:40:7]:
            state = read_board(tokens[:at]).state()
            for move, rated in safety(state, 0, config).items():
                if rated != DIES:
                    continue
                target, body = step(state.snakes[0].head, move), state.snakes[0].body
                kind = "wall" if not config.in_bounds(target) else "neck" if target == body[1] else "body"
                for words in continuations(loaded.model, loaded.tokenizer, [*tokens[:at], "TICK", "S0", INPUT_TOKEN[move]]):
                    counts[kind] += 1
                    counts[kind, "hit"] += "HIT" in words[:2]
                    counts[kind, "dies"] += any(a == "S0" and b.startswith("DIE_") for a, b in pairwise(words))
    for kind in ("wall", "neck", "body"):
        print(f"snake 0 moved into a {kind}: {counts[kind, 'dies']} of {counts[kind]} dreams write its death, {counts[kind, 'hit']} a HIT")


if __name__ == "__main__":
    main()

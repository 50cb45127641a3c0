# the share of tokens the rules fix given the history (what a draft of the rules would propose to a speculative
# sampler): python reports/speed/cpu45-amx/attention/determined.py CORPUS N  (from the repository root, its .venv)
import sys

from gamegrammar.data.corpus import Corpus

corpus = Corpus(sys.argv[1])
spec = corpus.game_spec
rows = corpus.split("val")[: int(sys.argv[2])]
total = fixed = 0
for row in rows:
    tokens = corpus.episode_tokens(int(row))
    total += len(tokens)
    fixed += len({p for p, _, _ in spec.rule_determined_positions(tokens)})
print(f"{len(rows)} episodes, {total} tokens, {fixed} fixed by the rules ({fixed / total:.1%}): "
      f"{total / (total - fixed):.2f} tokens a pass if every fixed token were verified in its free token's pass")

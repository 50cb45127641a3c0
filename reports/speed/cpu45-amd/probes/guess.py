"""The drafted sampler on models/snake with 0, 1 or 2 guessed ticks past the rules' tokens, in a given format: on a host
where a pass's cost grows with the tokens it feeds (this AMD host), fewer guesses may pay. Usage: guess.py FORMAT TICKS [NUM]"""
import sys, time
import gamegrammar.games.snake.draft as snake_draft
from gamegrammar.training.checkpoint import load_checkpoint
from gamegrammar.commands.sample import default_max_length
from gamegrammar.model.precision import choose_precision, for_generation, DRAFTED_TOKENS
from gamegrammar.model.sampling import SamplingConfig, SamplingStats, generate
fmt, ticks = sys.argv[1], int(sys.argv[2])
num = int(sys.argv[3]) if len(sys.argv) > 3 else 256
snake_draft.GUESSED_TICKS = ticks
L = load_checkpoint("models/snake")
model = for_generation(L.model, choose_precision(fmt, L.model, DRAFTED_TOKENS))
game, config, codec, tok = L.game_spec, L.game, L.codec, L.tokenizer
cfg = SamplingConfig(max_length=default_max_length(model.config.block_size, L.longest_episode), batch_size=256, seed=0)
stats = SamplingStats()
t = time.perf_counter()
generate(model, [[tok.bos_id]] * num, tok.eos_id, cfg, stats, draft=(tok, lambda: game.rule_draft(config, codec)))
e = time.perf_counter() - t
print(f"{fmt}, {ticks} guessed ticks, {num} samples: {e:.1f} s, {stats.generated_tokens / e:,.0f} tokens/s, passes {stats.passes}, proposed {stats.proposed:,}, kept {stats.accepted:,}")

import sys, time, torch
from gamegrammar.training.checkpoint import load_checkpoint
from gamegrammar.commands.sample import default_max_length
from gamegrammar.model.precision import choose_precision, for_generation, DRAFTED_TOKENS
from gamegrammar.model.sampling import SamplingConfig, SamplingStats, generate
L = load_checkpoint("models/snake")
fmt, num, batch = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
prec = choose_precision(fmt, L.model, DRAFTED_TOKENS); print(prec)
model = for_generation(L.model, prec)
game, config, codec, tok = L.game_spec, L.game, L.codec, L.tokenizer
cfg = SamplingConfig(max_length=default_max_length(model.config.block_size, L.longest_episode), batch_size=batch, seed=0)
stats = SamplingStats()
with torch.profiler.profile() as prof:
    t = time.perf_counter()
    out = generate(model, [[tok.bos_id]] * num, tok.eos_id, cfg, stats, draft=(tok, lambda: game.rule_draft(config, codec)))
    e = time.perf_counter() - t
print(f"{fmt}: {e:.1f} s, {stats.generated_tokens / e:,.0f} tok/s, passes {stats.passes}, proposed {stats.proposed}, kept {stats.accepted}")
print(prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=14))

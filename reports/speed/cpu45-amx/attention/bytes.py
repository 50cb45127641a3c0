# attention's time and bytes inside the sampler: python bytes.py DTYPE BATCH NUM (run from the repository root with its .venv)
import sys, time, torch
import gamegrammar.model.gpt as G
from gamegrammar.training.checkpoint import load_checkpoint
from gamegrammar.model.precision import choose_precision, for_generation
from gamegrammar.model.sampling import generate, SamplingConfig, SamplingStats
torch.set_num_threads(2)
L = load_checkpoint("models/snake", map_location=torch.device("cpu"))
prec = choose_precision(sys.argv[1], L.model)
m = for_generation(L.model, prec)
b=int(sys.argv[2]); num=int(sys.argv[3])
orig=G.F.scaled_dot_product_attention
acc={"bytes":0,"t":0.0,"calls":0,"ctx":0}
class FF:
    def __getattr__(self, n): return getattr(torch.nn.functional, n)
    @staticmethod
    def scaled_dot_product_attention(q,k,v,**kw):
        t=time.perf_counter(); y=orig(q,k,v,**kw); acc["t"]+=time.perf_counter()-t
        acc["bytes"]+=k.numel()*k.element_size()*2; acc["calls"]+=1; acc["ctx"]+=k.shape[2]
        return y
G.F=FF()
cfg = SamplingConfig(1.0, None, None, 2304, b, 0)
st=SamplingStats()
t=time.perf_counter(); generate(m, [[L.tokenizer.bos_id]] * num, L.tokenizer.eos_id, cfg, st); dt=time.perf_counter()-t
print(st.generated_tokens, f"{dt:.1f}s", f"{st.generated_tokens/dt:.0f} tok/s", f"attn {acc['t']:.1f}s {acc['bytes']/acc['t']/1e9:.1f} GB/s calls {acc['calls']} mean ctx {acc['ctx']/acc['calls']:.0f} KV bytes/token {acc['bytes']/st.generated_tokens/1e6:.2f} MB")

# How often each guess of the next input holds on held-out corpus episodes, and the adaptive guess (InputGuess):
#   python reports/speed/cpu45-pool/input_guess.py 2000   (from the repository root, data/corpus60k-careless-sense present)
import sys, collections
from gamegrammar.data.corpus import open_corpus
from gamegrammar.games.snake import draft as D
from gamegrammar.games.snake.rules import legal_directions, resolve, Outcome
c = open_corpus("data/corpus60k-careless-sense")
rows = c.split("val")[:int(sys.argv[1])]
cfg, codec = c.game, c.codec
def safe(state):
    legal = legal_directions(state.direction)
    s = [d for d in legal if resolve(state, cfg, d)[1] in (Outcome.MOVE, Outcome.EAT)]
    return s or legal
def pick(state, cands):
    return state.direction if state.direction in cands else cands[0]
def greedy(state):
    cands = safe(state)
    if state.food is None: return pick(state, cands)
    fx, fy = state.food; hx, hy = state.head
    dist = lambda d: abs(hx + d.delta[0] - fx) + abs(hy + d.delta[1] - fy)
    b = min(map(dist, cands)); return pick(state, [d for d in cands if dist(d) == b])
def wall(state):
    cands = safe(state); hx, hy = state.head
    pref = lambda d: (cfg.next_to_wall((hx + d.delta[0], hy + d.delta[1])), d == state.direction)
    b = max(map(pref, cands)); return pick(state, [d for d in cands if pref(d) == b])
def keep(state): return state.direction
def keep_safe(state): return pick(state, safe(state))
EXPERTS = {"keep": keep, "greedy": greedy, "wall": wall}
hits = collections.Counter(); total = 0; adaptive = 0; by_agent = collections.defaultdict(collections.Counter)
orig = D.SnakeDraft._input
def _input(self, token):
    global total, adaptive
    action = D._INPUTS.get(token)
    if action is not None and self.state is not None:
        st = self.state
        g = {k: f(st) for k, f in EXPERTS.items()}
        sc = self.__dict__.setdefault("_sc", collections.Counter())
        best = max(EXPERTS, key=lambda k: (sc[k], k == "wall"))
        adaptive += g[best] == action
        for k in EXPERTS:
            if g[k] == action: sc[k] += 1; hits[k] += 1; by_agent[self._agent][k] += 1
        by_agent[self._agent]["n"] += 1
        total += 1
    return orig(self, token)
D.SnakeDraft._input = _input
for r in rows:
    d = D.rule_draft(cfg, codec); d._agent = c.agent(int(r))
    for t in c.episode_tokens(int(r)): d.feed(t)
print(total, {k: round(v / total, 3) for k, v in hits.items()}, "adaptive", round(adaptive / total, 3))
for a, h in by_agent.items(): print(a, h["n"], {k: round(v / h["n"], 3) for k, v in h.items() if k != "n"})

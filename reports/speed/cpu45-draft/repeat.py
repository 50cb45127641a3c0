# the share of ticks whose input keeps the direction, in a file of samples: python reports/speed/cpu45-draft/repeat.py SAMPLES
import sys
from gamegrammar.games.snake.grammar import parse, Keyframe
seqs = [l.split() for l in open(sys.argv[1])]
same = total = same_prev = 0
for s in seqs:
    direction = None; prev = None
    try:
        for item in parse(s):
            if isinstance(item, Keyframe):
                direction = item.direction; continue
            total += 1
            same += item.input == direction
            same_prev += item.input == prev
            prev = item.input
            direction = item.input if item.input != {0:1,1:0,2:3,3:2}[direction] else direction
    except Exception:
        pass
print(f"{total} ticks: input == current direction {same/total:.3f}, == previous input {same_prev/total:.3f}")

#!/usr/bin/env bash
# Check that `gamegrammar replay --html` opens in headless Chromium and shows a board.
#
# It generates a small corpus, writes two replay pages (a valid episode paused
# mid-game, and the same episode with one MOVE cell corrupted, paused at the
# broken tick), screenshots both with headless Chromium, and checks with
# Pillow that each screenshot shows a board: not one flat colour, and the
# snake-head and food colours present (plus the violation red on the second).
#
# Needs chromium (Debian/Ubuntu: apt-get update && apt-get install -y chromium;
# or set CHROMIUM=/path/to/chrome) and the project installed (make setup).
#
# Usage: scripts/check_replay_html.sh [KEEP_DIR]
#   KEEP_DIR  keep the pages and screenshots there (valid.png, violation.png);
#             (docs/replay.png is a screenshot made the same way).
set -euo pipefail

cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-$( [ -x .venv/bin/python ] && echo .venv/bin/python || echo python )}"
CHROMIUM="${CHROMIUM:-$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)}"
if [ -z "$CHROMIUM" ]; then
    echo "check_replay_html: chromium not found (apt-get install -y chromium, or set CHROMIUM=...)" >&2
    exit 2
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
out="${1:-$work/out}"
mkdir -p "$out"

gg() { "$PYTHON" -m gamegrammar.cli "$@"; }

gg generate --episodes 12 --seed 5 --keyframe-interval 20 --out "$work/corpus" --quiet >/dev/null

# Pick the longest episode, write it and a corrupted copy to a token file, and choose the ticks to show.
read -r row mid bad_tick < <("$PYTHON" - "$work" <<'PY'
import sys
from pathlib import Path

from gamegrammar.data.corpus import Corpus
from gamegrammar.games.snake.replay import replay

work = Path(sys.argv[1])
corpus = Corpus(work / "corpus")
row = int(corpus.index["ticks"].argmax())
tokens = corpus.episode_tokens(row)
mid = int(corpus.index[row]["ticks"]) // 2
# Corrupt the first MOVE at or after the middle tick: its X cell jumps by 2 (a model-like slip).
moves = [i for i, t in enumerate(tokens) if t == "MOVE"]
at = moves[min(mid, len(moves) - 1)] + 1
x = int(tokens[at][1:])
bad = list(tokens)
bad[at] = f"X{x - 2 if x >= 2 else x + 2}"
(work / "tokens.txt").write_text(" ".join(tokens) + "\n" + " ".join(bad) + "\n")
first = replay(bad, corpus.game).first_violation
assert first is not None, "the corrupted sequence should break a rule"
print(row, mid, first.frame)
PY
)

gg replay --corpus "$work/corpus" --episode "$row" --html "$out/valid.html" --start-tick "$mid"
gg replay --corpus "$work/corpus" --tokens "$work/tokens.txt" --line 2 --html "$out/violation.html" --start-tick "$bad_tick"

shoot() {  # shoot PAGE PNG
    "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$work/profile-$(basename "$2" .png)" --screenshot="$2" --window-size=900,700 \
        "file://$(realpath "$1")" >"$work/chromium.log" 2>&1 || { cat "$work/chromium.log" >&2; exit 1; }
}
shoot "$out/valid.html" "$out/valid.png"
shoot "$out/violation.html" "$out/violation.png"

"$PYTHON" - "$out/valid.png" "$out/violation.png" <<'PY'
import sys

from PIL import Image

from gamegrammar.games.snake.replay.style import COLORS


def count(image: Image.Image, name: str, tolerance: int = 6) -> int:
    """Pixels within `tolerance` of a palette colour."""
    want = tuple(int(COLORS[name][k : k + 2], 16) for k in (1, 3, 5))
    return sum(n for n, rgb in image.getcolors(1 << 24) if all(abs(a - b) <= tolerance for a, b in zip(rgb, want)))


failed = False
for path, extra in ((sys.argv[1], ()), (sys.argv[2], ("mark",))):
    image = Image.open(path).convert("RGB")
    colors = len(image.getcolors(1 << 24))
    found = {name: count(image, name) for name in ("board", "head", "food", *extra)}
    ok = image.size == (900, 700) and colors > 20 and all(n >= 200 for n in found.values())
    failed |= not ok
    print(f"{'ok  ' if ok else 'FAIL'} {path}: {image.size[0]}x{image.size[1]}, {colors} colours, pixels {found}")
sys.exit(1 if failed else 0)
PY
echo "check_replay_html: the replay page renders a board in headless Chromium"

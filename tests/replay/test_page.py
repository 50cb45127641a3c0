"""The shared HTML player: slots filled once, data that cannot break out of its script, the common JSON."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest

from gamegrammar.replay.page import PlayerView, clamp_tick, json_for_script, page_data, render_page, violation_data

VIEW = PlayerView(
    legend='<span class="sw"></span>LEGEND-MARK\n',
    helpers="  const on = (c) => !!c;\n  function rect() {}\n",
    pieces="  // PIECES-MARK\n",
    caption='    $("caption").textContent = "CAPTION-MARK";\n    const notes = [];\n    let bad = false;\n',
)


def data_of(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="replay-data">(.*?)</script>', page, re.S)
    assert found is not None
    return json.loads(found.group(1))


def test_every_slot_is_filled_and_no_marker_is_left() -> None:
    page = render_page(VIEW, {"x": 1}, "a title")
    for mark in ("LEGEND-MARK", "PIECES-MARK", "CAPTION-MARK", "const on = (c) => !!c;"):
        assert page.count(mark) == 1
    assert not re.search(r"__[A-Z_]+__", page)
    assert "<title>a title</title>" in page and data_of(page) == {"x": 1}
    assert page.index("function drawBoard") < page.index("PIECES-MARK") < page.index("const here = D.first")


def test_empty_slots_leave_no_line_and_optional_slots_land_in_place() -> None:
    bare = render_page(VIEW, {}, "t")
    assert "\n\n\n" not in bare and 'id="status"' not in bare
    full = PlayerView(
        legend=VIEW.legend,
        helpers=VIEW.helpers,
        pieces=VIEW.pieces,
        caption=VIEW.caption,
        mark_row="(D.height - 1 - c[1])",
        css="  #status { margin: 0; }",  # no final newline: a line slot still fills whole lines
        panel='    <div id="status"></div>\n',
        widgets="  function drawStatus(f) {}\n",
        refresh="    drawStatus(f);\n",
    )
    page = render_page(full, {}, "t")
    assert "  #status { margin: 0; }\n" in page and page.index("#status {") < page.index("</style>")
    assert page.index('id="slider"') < page.index('id="status"') < page.index('class="legend"')
    assert page.index("function drawBoard") < page.index("function drawStatus") < page.index("function show(k)")
    assert page.index("drawBoard(f, k);\n    drawStatus(f);") > page.index("function show(k)")
    assert 'ctx.fillText("!", c[0] * cell + 4, (D.height - 1 - c[1]) * cell + 2)' in page
    assert 'ctx.fillText("!", c[0] * cell + 4, c[1] * cell + 2)' in bare


def test_title_and_data_are_escaped_and_never_read_as_slots() -> None:
    tokens = ["</script><script>alert(1)</script>", "a&b", "__LEGEND__", "__DATA__"]
    page = render_page(VIEW, {"tokens": tokens}, "<b>__CSS__</b>")
    assert "<title>&lt;b&gt;__CSS__&lt;/b&gt;</title>" in page
    assert "</script><script>alert" not in page
    assert data_of(page)["tokens"] == tokens


def test_json_for_script_round_trips_and_hides_markup() -> None:
    obj = {"t": ["<!--", "-->", "&amp;", "é"]}
    text = json_for_script(obj)
    assert not set("<>&") & set(text) and json.loads(text) == obj


@pytest.mark.parametrize(("start", "count", "expected"), [(None, 5, None), (3, 5, 3), (9, 5, 4), (-2, 5, 0), (7, 0, 7)])
def test_clamp_tick(start: int | None, count: int, expected: int | None) -> None:
    assert clamp_tick(start, count) == expected


def test_page_data_has_the_common_keys_in_order_and_the_games_extras_last() -> None:
    err = ValueError("token 4: expected FOOD")
    err.index = 4  # type: ignore[attr-defined]
    rp = SimpleNamespace(
        tokens=["BOS", "X1"],
        config=SimpleNamespace(width=5, height=4, max_ticks=9),
        verdict=SimpleNamespace(valid=False, violations=["grammar", "complete"], positions={"grammar": 4, "complete": 2}),
        grammar_error=err,
        summary=lambda: "no frames; first violation: ...",
    )
    first = SimpleNamespace(rule="grammar", index=4, frame=0, cell=(1, 2), message="m")
    data = page_data(rp, [{"t": 0}], violation_data(first, snake=3), colors={"a": "#000000"}, start_tick=2, title="T", extra=[1])
    assert list(data) == [
        "title", "width", "height", "maxTicks", "tokens", "frames", "valid", "first",
        "violations", "grammarError", "summary", "start", "colors", "extra",
    ]  # fmt: skip
    assert data["first"] == {"rule": "grammar", "index": 4, "frame": 0, "cell": [1, 2], "snake": 3, "message": "m"}
    assert list(data["first"])[-1] == "message"
    assert data["violations"] == [["grammar", 4], ["complete", 2]]
    assert data["grammarError"] == {"index": 4, "message": "token 4: expected FOOD"}
    assert (data["width"], data["height"], data["maxTicks"], data["start"]) == (5, 4, 9, 2)
    assert violation_data(None) is None
    assert violation_data(SimpleNamespace(rule="r", index=0, frame=0, cell=None, message=""))["cell"] is None

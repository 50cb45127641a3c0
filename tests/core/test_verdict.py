from gamegrammar.core.verdict import Findings, make_verdict, rule_names, tiers_of

RULES = {"structural": ("grammar", "complete"), "physical": ("in_bounds", "self_death"), "rules": ("spawn_on_empty",)}


def test_findings_keep_the_first_place_each_rule_breaks():
    found = Findings(length=40)
    for rule, index in (("self_death", 30), ("self_death", 12), ("spawn_on_empty", 20), ("self_death", 25)):
        found.note(rule, index)
    assert found.first == {"self_death": 12, "spawn_on_empty": 20} and found.length == 40


def test_a_verdict_orders_violations_by_place_then_by_the_games_rule_order():
    verdict = make_verdict({"spawn_on_empty": 7, "in_bounds": 7, "grammar": 9}, {"full": True}, RULES)
    assert verdict.violations == ["in_bounds", "spawn_on_empty", "grammar"]  # a tie at 7 in the game's order
    assert verdict.first_violation == 7 and not verdict.valid
    assert verdict.tiers == {"structural": False, "physical": False, "rules": False, "full": False}
    assert verdict.to_json() == {
        "valid": False,
        "tiers": verdict.tiers,
        "violations": ["in_bounds", "spawn_on_empty", "grammar"],
        "first_violation": 7,
        "lenient": {"full": True},
    }
    one = make_verdict({"spawn_on_empty": 3}, {}, RULES)
    assert one.tiers == {"structural": True, "physical": True, "rules": False, "full": False}


def test_a_clean_sequence_passes_every_tier():
    verdict = make_verdict({}, {}, RULES)
    assert verdict.valid and verdict.violations == [] and verdict.first_violation is None
    assert tiers_of(RULES) == ("structural", "physical", "rules", "full")
    assert rule_names(RULES) == ("grammar", "complete", "in_bounds", "self_death", "spawn_on_empty")

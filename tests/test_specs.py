"""The agent-spec grammar (``agents.specs``): names, options after ``?``, ``module:attr``, entry
points, checkpoints; clear errors for the rest."""

import pytest

from agents import specs
from agents.baselines import HeuristicAgent, RandomAgent
from shengji_env import Rules

RULES = Rules()


class Bot(RandomAgent):
    """A test policy with options."""

    def __init__(self, rules, depth: int = 1, greedy: bool = False):
        super().__init__(rules)
        self.depth, self.greedy = depth, greedy


@pytest.mark.parametrize("text,name,options", [
    ("heuristic", "heuristic", {}),
    ("heuristic?strict=true", "heuristic", {"strict": True}),
    ("pimc?worlds=32&candidates=6", "pimc", {"worlds": 32, "candidates": 6}),
    ("pkg.mod:Bot?depth=3&rate=1e-3&label=x", "pkg.mod:Bot", {"depth": 3, "rate": 1e-3, "label": "x"}),
    ("runs/x?sample=true", "runs/x", {"sample": True}),
])
def test_parse(text, name, options):
    got = specs.parse(text)
    assert (got.name, got.options) == (name, options)
    assert specs.parse(str(got)) == got


@pytest.mark.parametrize("text", ["", "heuristic?strict", "heuristic?=1", "x?a b=1"])
def test_bad_syntax_is_named(text):
    with pytest.raises(ValueError, match="agent spec"):
        specs.parse(text)


def test_options_reach_the_factory():
    bot = specs.resolve(f"{__name__}:Bot?depth=3&greedy=true", RULES)
    assert isinstance(bot, Bot) and bot.depth == 3 and bot.greedy is True
    assert specs.resolve("heuristic?strict=true", RULES).strict is True


def test_an_unknown_option_is_refused_with_its_name():
    with pytest.raises(ValueError, match="worlds"):
        specs.resolve("heuristic?worlds=3", RULES)
    with pytest.raises(ValueError, match="speed"):
        specs.resolve(f"{__name__}:Bot?speed=3", RULES)


def test_registered_names_and_entry_points(monkeypatch):
    monkeypatch.setitem(specs.BUILTIN, "mine", lambda rules, **kw: Bot(rules, **kw))
    assert specs.resolve("mine?depth=2", RULES).depth == 2

    class EP:
        name, value = "plugged", f"{__name__}:Bot"

        def load(self):
            return Bot

    monkeypatch.setattr(specs, "entry_points",
                        lambda group: [EP()] if group == specs.ENTRY_POINT_GROUP else [])
    assert isinstance(specs.resolve("plugged?depth=4", RULES), Bot)
    assert "plugged" in specs.known_names()


def test_unknown_names_list_what_is_known():
    with pytest.raises(ValueError, match="random"):
        specs.resolve("nope", RULES)
    assert isinstance(specs.resolve("heuristic", RULES), HeuristicAgent)

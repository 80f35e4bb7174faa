"""render.py text views, and ``shengji-play`` driven through a real pseudo-terminal."""

import sys

import numpy as np
import pexpect
import pytest

from shengji_env import cards
from shengji_env.core.engine import Engine
from shengji_env.render import format_hand, render_state
from shengji_env.rules.config import Rules


def test_hand_grouped_by_effective_suit_in_trump_order():
    hand = cards.parse("S:A 2 2 5, H:2 K, D:3 3, Jk:BJ LJ")
    # level 2, trump H: off-suits after hearts (C, D, S), then trump high -> low
    assert format_hand(hand, 0, 1) == "D: 3 3 | S: A 5 | trump: BJ LJ H:2 S:2 S:2 H:K"
    assert "\x1b[31m" in format_hand(hand, 0, 1, color=True)


def test_render_state_through_a_game():
    eng = Engine(Rules(decks=1), 1, 0)
    s = eng.reset()
    rng = np.random.default_rng(0)
    while not s.done[0]:
        text = render_state(eng, s, 0)
        assert "phase" in text and "to act" in text and "\x1b" not in text
        assert render_state(eng, s, 0, seat=1).count("\n") < text.count("\n")
        s, _, _ = eng.step(s, np.array([rng.choice(np.flatnonzero(eng.legal_mask(s)[0]))]))
    assert "hand over" in render_state(eng, s, 0)


@pytest.mark.parametrize("decks", [1, 3])
def test_play_full_hand_in_a_pty(decks):
    child = pexpect.spawn(sys.executable, ["-m", "shengji_env.play", "--debug-legal",
                                           "--decks", str(decks), "--seed", "3"],
                          encoding="utf-8", timeout=20, dimensions=(50, 200))
    invalid = ["xyz", "S:Z", "Jk:BJ BJ BJ", ""]
    turns = 0
    while True:
        i = child.expect([r"LEGAL: ([^\r\n]*)\r?\n", "GAME OVER", pexpect.EOF])
        if i == 1:
            break
        assert i == 0, child.before
        moves = child.match.group(1).split(" | ")
        child.expect("your move> ")
        if invalid and turns % 3 == 0:
            child.sendline(invalid.pop())
            child.expect(r"(could not read|legal now|you do not hold)[^\r\n]*")
            child.expect("your move> ")
        child.sendline(moves[turns % len(moves)])
        turns += 1
    child.expect(pexpect.EOF)
    assert not invalid and turns > 10


def test_play_against_heuristic_agents_until_quit(monkeypatch, capsys):
    from agents import play_cli
    from shengji_env import play

    answers = iter(["help", "quit"])
    monkeypatch.setattr(play, "input_fn", lambda prompt: next(answers))
    assert play_cli.main(["--seed", "1", "--no-color", "--opponents", "heuristic",
                          "--partner", "heuristic"]) == 0
    assert "bye" in capsys.readouterr().out


def test_env_table_alone_knows_only_random_agents(capsys):
    from shengji_env import play

    with pytest.raises(SystemExit) as exc:
        play.main(["--opponents", "heuristic"])
    assert exc.value.code == 2
    assert "'heuristic'" in capsys.readouterr().err

"""render.py text views, and ``shengji-play`` driven through a real pseudo-terminal."""

import re
import sys

import numpy as np
import pexpect
import pytest

from shengji_env import cards
from shengji_env.core.engine import Engine
from shengji_env.render import format_hand, render_state
from shengji_env.rules.config import Rules

PROMPT = r"(your (move|lead|play)|bury)[^\r\n]*> "


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
        child.expect(PROMPT)
        if invalid and turns % 3 == 0:
            child.sendline(invalid.pop())
            child.expect(r"(could not read|legal now|you do not hold)[^\r\n]*")
            child.expect(PROMPT)
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


def _hand_groups(line: str) -> dict[str, list[str]]:
    """``{"S": ["A", "A", "K"], "trump": [...]}`` from a rendered hand line."""
    groups = {}
    for part in line.split("  ", 1)[1].split(" | "):
        label, _, ranks = part.strip().partition(": ")
        groups[label] = ranks.split()
    return groups


def test_story_undo_and_failed_throw_in_a_pty():
    """Seed 5: North declares first and becomes dealer; the bury is built with undo and clear;
    North throws a whole off-suit, the failed throw is explained, finished tricks are shown."""
    import re

    child = pexpect.spawn(sys.executable, ["-m", "shengji_env.play", "--seed", "5", "--no-color"],
                          encoding="utf-8", timeout=20, dimensions=(50, 250))

    def my_hand() -> dict[str, list[str]]:
        return _hand_groups(re.findall(r"\*0 North  [^\r\n]*", child.before)[-1])

    child.expect(r"your move[^\r\n]*> ")
    child.sendline("help")
    child.expect(r"legal now: ([^\r\n]*)\r?\n")
    declare = next(m for m in child.match.group(1).split(", ") if m.startswith("declare"))
    child.expect(r"your move[^\r\n]*> ")
    child.sendline(declare)
    while child.expect([r"bury \(8 more cards\)> ", r"your move[^\r\n]*> "]) == 1:
        child.sendline("pass")
    off = [(label, ranks) for label, ranks in my_hand().items() if label != "trump"]
    bury = [f"{label}:{r}" for label, ranks in off for r in ranks][-8:]  # low off-suit cards
    child.sendline(bury[0])
    child.expect(r"bury \(7 more cards\)> ")
    child.sendline("undo")
    child.expect(r"bury \(8 more cards\)> ")
    child.sendline(", ".join(bury[:3]))
    child.expect(r"selected so far: [^\r\n]*\r?\n")
    child.expect(r"bury \(5 more cards\)> ")
    child.sendline("clear")
    child.expect(r"bury \(8 more cards\)> ")
    child.sendline(", ".join(bury[:2]))
    child.expect(r"bury \(6 more cards\)> ")
    child.sendline(", ".join(bury))  # the whole bury typed again replaces the partial one
    child.expect("North \\(you\\) buries")
    child.expect("your lead> ")
    label, ranks = max(((k, v) for k, v in my_hand().items() if k != "trump"),
                       key=lambda kv: len(kv[1]))
    child.sendline(f"{label}:" + " ".join(ranks))
    child.expect(r"the throw fails: (West|South|East)( \(you\))? holds [^\r\n]*; [^\r\n]* is led")
    child.expect(r"Trick 1: North [^\r\n]*-> \w+")
    while child.expect([r"Trick 2: [^\r\n]*-> ", PROMPT]) == 1:
        child.sendline("help")  # follow with the first legal card until two tricks were shown
        child.expect(r"legal now: ([^\r\n]*)\r?\n")
        first = child.match.group(1).split(", ")[0]
        child.expect(PROMPT)
        child.sendline(first)
    child.sendline("quit")
    child.expect("bye")
    child.expect(pexpect.EOF)


def test_deal_in_one_line_per_round_tricks_won_and_ctrl_c_in_a_pty():
    """Seed 5: North is asked during the deal; each ask is one line (not a table), the others'
    declarations come as one line per round; the table counts the tricks won by North's team;
    Ctrl-C leaves cleanly (exit status 130, no traceback)."""
    import re

    child = pexpect.spawn(sys.executable, ["-m", "shengji_env.play", "--seed", "5", "--no-color"],
                          encoding="utf-8", timeout=20, dimensions=(50, 250))
    asks = 0
    while child.expect([r"your move \(declare or pass\)> ", PROMPT]) == 0:
        asks += 1
        assert "phase DECLARE" not in child.before  # no table per pass
        child.sendline("pass")
    deal = child.before
    assert asks > 5
    rounds = re.findall(r"Deal round (\d+) \(cards (\d+)-(\d+)\): ([^\r\n]*)", deal)
    assert rounds and all(int(b) == 4 * int(r) - 3 and int(e) == 4 * int(r)
                          for r, b, e, _ in rounds)
    assert len({r for r, *_ in rounds}) == len(rounds)  # one line per round
    assert "declares" in rounds[0][3] and "(after card" not in rounds[0][3]
    assert re.search(r"tricks won: your team 0 of 0", deal + child.after)
    seen = ""
    for _ in range(40):  # first legal moves until two tricks are over
        child.sendline("help")
        child.expect(r"legal now: ([^\r\n]*)\r?\n")
        move = child.match.group(1).split(", ")[0]
        child.expect(PROMPT)
        child.sendline(move)
        child.expect(PROMPT)
        seen += child.before
        m = re.findall(r"tricks won: your team (\d+) of (\d+)", child.before)
        if m and int(m[-1][1]) >= 2:
            break
    else:
        raise AssertionError("no two tricks were finished")
    winners = re.findall(r"Trick \d+: [^\r\n]*-> (\w+)", seen)
    assert int(m[-1][0]) == sum(w in ("North", "South") for w in winners)
    child.sendintr()
    child.expect("interrupted; bye")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130 and "Traceback" not in child.before


def test_find_friends_at_the_terminal_as_the_dealer(monkeypatch, capsys):
    """Seed 5, find-friends: North declares whenever it can, deals, buries and names the friend
    card by typing it; the table shows the friend card and per-player levels, never the hidden
    friend; the end screen's story tells the naming and the reveal."""
    from shengji_env import play
    from shengji_env.rules.actions import DECLARE_BASE, Phase

    tables = []

    class Kept(play.Table):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            tables.append(self)

    def answer(prompt):
        t = tables[0]
        legal = [int(a) for a in t.legal()]
        if t.sess.phase == Phase.FRIEND:
            return "S:A"
        declares = [a for a in legal if a >= DECLARE_BASE and t.sess.phase == Phase.DECLARE]
        return play.move_text(declares[-1] if declares else legal[0], t.cfg)

    monkeypatch.setattr(play, "Table", Kept)
    monkeypatch.setattr(play, "input_fn", answer)
    assert play.main(["--seed", "5", "--no-color", "--find-friends"]) == 0
    out = capsys.readouterr().out
    assert "North (you) names the friend card S:A" in out
    assert "friend card: S:A" in out and "levels: North (you) 2, West 2" in out
    assert "friend (not revealed)" not in out.split("The hand's story:")[0]
    story = out.split("The hand's story:")[1]
    assert "names the friend card S:A" in story and "GAME OVER: your side" in story
    assert re.search(r"friend is revealed|never played S:A|played alone", story)

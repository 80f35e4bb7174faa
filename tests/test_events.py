"""``shengji_env.events``: the narrator shared by the tables, and game logs that replay."""

import numpy as np
import pytest

from shengji_env import cards
from shengji_env.core.engine import Engine
from shengji_env.events import SEAT_WORDS, explain
from shengji_env.gamelog import GameLog, replay
from shengji_env.rules import play as rules_play
from shengji_env.rules.config import Rules
from shengji_env.session import Session


def random_game(rules, seed):
    eng = Engine(rules, 1, seed)
    s = eng.reset()
    rng = np.random.default_rng(seed)
    while not s.done[0]:
        a = int(rng.choice(np.flatnonzero(eng.legal_mask(s)[0])))
        before = s.copy()
        s, _, _ = eng.step(s, np.array([a]))
        yield eng, before, a, s, explain(eng, before, a, s)


@pytest.mark.parametrize("choice", ["AUTO_LOWEST_RANK", "NEXT_PLAYER", "AUTO_FEWEST_CARDS"])
def test_failed_throws_name_the_first_seat_whose_cards_beat_them(choice):
    seen = 0
    for seed in range(3):
        for eng, before, a, after, events in random_game(Rules(failed_throw_choice=choice), seed):
            for ev in events:
                if ev.kind != "throw_failed":
                    continue
                seen += 1
                leader, beater = ev.data["seat"], ev.data["beater"]
                ctx = eng.tables.context(int(before.level[0]), int(before.trump[0]))
                tried = before.selection[0]
                beats = [rules_play.validate_throw(tried, [before.hands[0, (leader + k) % 4]
                                                           if k == j else cards.empty()
                                                           for k in (1, 2, 3)], ctx, eng.cfg).ok
                         for j in (1, 2, 3)]
                assert beater == (leader + 1 + beats.index(False)) % 4
                assert f"the throw fails: {SEAT_WORDS[beater]} holds" in ev.text
                assert ("chooses the unit" in ev.text) == (after.phase[0] == 4)
    assert seen > 5


def test_tricks_and_the_end_of_a_hand_add_up():
    for decks in (1, 2):
        tricks, over = [], None
        for eng, before, a, after, events in random_game(Rules(decks=decks), 7):
            tricks += [e for e in events if e.kind == "trick"]
            over = next((e for e in events if e.kind == "hand_over"), over)
        s = after
        assert [t.data["number"] for t in tricks] == list(range(1, len(tricks) + 1))
        played = sum(np.array([cards.from_ids(p, decks) for p in t.data["plays"]]) for t in tricks)
        np.testing.assert_array_equal(played, s.played[0])
        assert sum(t.data["points"] for t in tricks if t.data["attackers_won"]) == s.captured[0]
        assert over.data["kitty_bonus"] == s.kitty_bonus[0]
        assert over.data["attacker_points"] == s.attacker_points[0]
        assert "Hand over. The kitty:" in over.text and "Levels:" in over.text


def test_a_session_log_saves_loads_and_replays(tmp_path):
    sess = Session(Rules(decks=1), 11, specs=["random"] * 4)
    events = sess.run_agents()
    path = sess.game_log().save(tmp_path)
    log = GameLog.load(path)
    assert log.agents == ["random"] * 4 and log.result["attacker_points"] == \
        int(sess.state.attacker_points[0])
    eng, s, steps = replay(log)
    replayed = [e.text for st in steps for e in st.events]
    assert replayed == [e.text.replace(" (you)", "") for e in events]
    bad = log.to_json() | {"version": 99}
    with pytest.raises(ValueError, match="version 99"):
        GameLog.from_json(bad)
    with pytest.raises(ValueError, match="another deck"):
        list(replay(GameLog.from_json(log.to_json() | {"deck": log.deck[::-1]}))[2])


def test_undo_takes_back_cards_of_an_unfinished_bury():
    for seed in range(40):  # a deal where the person (seat 0) declares first and buries
        sess = Session(Rules(), seed, human=0)
        sess.run_agents()
        declare = [a for a in sess.legal() if a > 54]
        if sess.phase.name != "DECLARE" or not declare:
            continue
        sess.step(declare[0])
        while sess.phase.name == "DECLARE" and sess.human_to_act:
            sess.step(54)
            sess.run_agents()
        if sess.phase.name == "BURY" and sess.human_to_act:
            break
    log_len = int(sess.state.log_len[0])
    first, second = (int(c) for c in sess.legal()[:2])
    sess.step(first)
    sess.step(second)
    assert sess.needed() == 6 and sess.undo() and sess.needed() == 7
    assert sess.state.selection[0, second] == (first == second)
    assert sess.clear() and sess.needed() == 8 and not sess.undo()
    assert int(sess.state.log_len[0]) == log_len  # the taken-back cards left no decision


@pytest.mark.parametrize("batched", [False, True])
def test_eval_save_games_replay(tmp_path, batched):
    from agents.eval.cli import main

    assert main(["heuristic", "random", "--deals", "1", "--decks", "1", "--no-progress",
                 "--save-games", str(tmp_path)] + ["--batched"] * batched) == 0
    paths = sorted(tmp_path.glob("heuristic-vs-random/*.json"))
    assert [p.name for p in paths] == ["deal0-A.json", "deal0-B.json"]
    for p in paths:
        log = GameLog.load(p)
        assert sorted(set(log.agents)) == ["heuristic", "random"]
        *_, last = replay(log)[2]
        assert int(last.after.attacker_points[0]) == log.result["attacker_points"]


@pytest.mark.parametrize("decks, choice", [(2, "AUTO_LOWEST_RANK"), (3, "NEXT_PLAYER")])
def test_find_friends_sides_are_told_only_when_known(decks, choice):
    """The friend card is named once; no trick before the friend plays it says whose side won
    it; the reveal (or the end of the hand) names the sides; levels are per player."""
    from shengji_env.events import deal_story

    for seed in range(2):
        sess = Session(Rules(decks=decks, partnership="FIND_FRIEND", failed_throw_choice=choice),
                       seed, human=None)
        while not sess.done:
            sess.step(sess.agent_action())
        kinds = [e.kind for e in sess.events]
        assert kinds.count("friend") == 1 and kinds.count("friend_revealed") == 1
        reveal = kinds.index("friend_revealed")
        for e in sess.events[:reveal]:
            if e.kind == "trick" and e.data["points"] and e.data["winner"] != sess.state.dealer[0]:
                assert "not known yet" in e.text and "attackers" not in e.text, e.text
                assert e.data["attackers_won"] is None  # nor in the data sent to the page
        over = sess.events[-1]
        assert over.kind == "hand_over" and "North-South" not in over.text
        assert all(w in over.text.split("Levels:")[1] for w in SEAT_WORDS)
        story = "\n".join(deal_story(sess.events))
        assert "(after card" not in story and "names the friend card" in story

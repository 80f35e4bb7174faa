"""The web table's server (``agents.web.app``): it never trusts the page.

Malformed and illegal messages get an error message and the connection stays usable; a
disconnected game is cleaned up; the limits (concurrent games, message size, idle time) hold;
a whole hand is played over the WebSocket and replayed through the API.
"""

import json
import re
import time

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx2")  # starlette.testclient's client (plain httpx is deprecated there)

from starlette.testclient import TestClient  # noqa: E402

from agents.web.app import Limits, create_app  # noqa: E402

NEW = {"type": "new", "seat": 0, "agents": ["random", "heuristic", "random", "heuristic"],
       "decks": 1, "seed": 3, "delay": 0}


def hello(ws):
    msg = ws.receive_json()
    assert msg["type"] == "hello" and len(msg["card_names"]) == 54
    return msg


def until_my_turn(ws):
    """Messages until the person must act (the state) or the game is over."""
    while True:
        msg = ws.receive_json()
        assert msg["type"] != "error", msg
        if msg["type"] == "over" or msg["legal"]:
            return msg


def play_out(ws, msg=None):
    """Play the first legal card (a lead: one card, then end) until the game is over;
    ``msg``: the state already received for the person's turn."""
    msg = msg or until_my_turn(ws)
    while msg["type"] != "over":
        legal = msg["legal"]
        if legal["leading"] and msg["view"].get("selection"):
            action = 55
        else:
            action = legal["cards"][0] if legal["cards"] else legal["actions"][0]["id"]
        ws.send_json({"type": "act", "action": action})
        msg = until_my_turn(ws)
    return msg


@pytest.fixture
def client():
    return TestClient(create_app(Limits(max_games=2)))


def test_malformed_messages_get_clear_errors(client):
    bad = [("nope", "not JSON"), ("[1, 2]", "JSON object"), ('{"type": "fly"}', "unknown message"),
           ('{"type": "act", "action": 3}', "no game yet"),
           (json.dumps(NEW | {"seat": 7}), "seat 7"),
           (json.dumps(NEW | {"decks": 5}), "decks 5"),
           (json.dumps(NEW | {"agents": ["random"]}), "list of 4"),
           (json.dumps(NEW | {"agents": ["random", "no_such_bot", "random", "random"]}),
            "'no_such_bot'"),
           (json.dumps(NEW | {"rules": {"kitty_multiplier": "HUGE"}}), "rules:"),
           (json.dumps(NEW | {"rules": {"no_option": 1}}), "rules:"),
           (json.dumps(NEW | {"seed": "x"}), "'seed' must be an integer"),
           (json.dumps(NEW | {"delay": 60}), "delay"),
           ("x" * (64 * 1024 + 1), "limit is 65536")]
    with client.websocket_connect("/ws") as ws:
        hello(ws)
        for text, words in bad:
            ws.send_text(text)
            msg = ws.receive_json()
            assert msg["type"] == "error" and words in msg["message"], (text[:60], msg)
        ws.send_bytes(b"\x00\x01")
        assert "text" in ws.receive_json()["message"]
        ws.send_json(NEW)  # still usable
        assert until_my_turn(ws)["type"] == "state"


def test_illegal_actions_are_rejected_then_a_hand_is_played_and_replayed(client):
    with client.websocket_connect("/ws") as ws:
        hello(ws)
        ws.send_json(NEW)
        msg = until_my_turn(ws)
        legal = set(msg["legal"]["cards"]) | {a["id"] for a in msg["legal"]["actions"]}
        bad = next(a for a in range(54) if a not in legal)
        for action, words in ((bad, "illegal action"), (9999, "illegal action"),
                              ("S:A", "must be an integer"), (True, "must be an integer")):
            ws.send_json({"type": "act", "action": action})
            err = ws.receive_json()
            assert err["type"] == "error" and words in err["message"], err
        ws.send_json({"type": "undo"})
        assert "nothing to take back" in ws.receive_json()["message"]
        over = play_out(ws, msg)
        assert over["view"]["done"] and over["log"]["result"] is not None
        assert any(e["kind"] == "hand_over" for e in over["story"])
        ws.send_json({"type": "act", "action": 0})
        assert "over" in ws.receive_json()["message"]
    log = over["log"]
    r = client.post("/api/replay", content=json.dumps(log))
    assert r.status_code == 200, r.text
    body = r.json()
    assert len(body["timeline"]) == 12  # 1 deck: 12 tricks
    assert body["frames"][-1]["view"]["done"]
    middle = body["frames"][body["timeline"][5]["frame"]]["view"]  # every hand is shown
    assert [sum(len(ids) for _, ids in middle["hands"][str(s)]) for s in range(4)] == [6] * 4
    broken = dict(log, decisions=log["decisions"][:5] + [[0, 200]])
    r = client.post("/api/replay", content=json.dumps(broken))
    assert r.status_code == 400 and "cannot replay" in r.json()["error"]
    assert client.post("/api/replay", content=b"{").status_code == 400
    assert client.post("/api/replay", content=b" " * (33 * 64 * 1024)).status_code == 413


def test_concurrent_games_are_limited_and_a_closed_game_is_cleaned_up():
    app = create_app(Limits(max_games=1))
    client = TestClient(app)
    with client.websocket_connect("/ws") as first:
        hello(first)
        first.send_json(NEW)
        until_my_turn(first)
        assert len(app.state.live) == 1
        with client.websocket_connect("/ws") as second:
            hello(second)
            second.send_json(NEW)
            msg = second.receive_json()
            assert msg["type"] == "error" and "busy: 1 games" in msg["message"]
    deadline = time.time() + 5
    while app.state.live and time.time() < deadline:
        time.sleep(0.05)
    assert not app.state.live  # the disconnected game was removed
    with client.websocket_connect("/ws") as again:
        hello(again)
        again.send_json(NEW)
        assert until_my_turn(again)["type"] == "state"


def test_idle_game_is_closed():
    app = create_app(Limits(idle_seconds=0.3))
    with TestClient(app).websocket_connect("/ws") as ws:
        hello(ws)
        ws.send_json(NEW)
        until_my_turn(ws)
        msg = ws.receive_json()  # nothing sent: the server closes the game
        assert msg["type"] == "error" and "idle" in msg["message"]
    assert not app.state.live


def test_page_and_saved_games(tmp_path):
    client = TestClient(create_app(save_games=str(tmp_path)))
    page = client.get("/")
    assert page.status_code == 200 and "table.js" in page.text
    assert client.get("/static/table.js").status_code == 200
    with client.websocket_connect("/ws") as ws:
        hello(ws)
        ws.send_json(NEW)
        over = play_out(ws)
    assert over["saved"] and (tmp_path / over["saved"]).is_file()
    assert client.get("/api/games").json()["games"] == [over["saved"]]
    assert client.get(f"/api/games/{over['saved']}").status_code == 200
    assert client.get("/api/games/..%2Fsecret.json").status_code == 404


def play_greedy(ws, msg):
    """Like ``play_out``, but declare whenever possible (to become the dealer), name the friend
    card when asked (the highest identity the person does not hold), and record the views."""
    views, named = [], None
    while msg["type"] != "over":
        legal, view = msg["legal"], msg["view"]
        views.append(view)
        declares = [a["id"] for a in legal["actions"] if a["label"].startswith("declare")]
        if legal["friend_base"] is not None:
            held = {c for _, ids in view["hands"][str(msg["you"])] for c in ids}
            named = next(c for c in (12, 25, 38, 51) if c not in held)  # an ace
            assert len(legal["friend_cards"]) == 54 and not legal["actions"]
            action = legal["friend_base"] + named
        elif declares:
            action = declares[-1]
        elif legal["leading"] and view.get("selection"):
            action = 55
        else:
            action = legal["cards"][0] if legal["cards"] else legal["actions"][0]["id"]
        ws.send_json({"type": "act", "action": action})
        msg = until_my_turn(ws)
    return msg, views, named


def test_find_friends_the_dealer_names_the_friend_card_over_the_socket(client):
    """The person (North) declares and deals; after the bury the page gets the 54 identities to
    name, and the views show the friend card, the sides as known and per-player levels."""
    new = NEW | {"decks": 2, "seed": 5, "agents": ["random"] * 4,
                 "rules": {"partnership": "FIND_FRIEND"}}
    with client.websocket_connect("/ws") as ws:
        hello(ws)
        ws.send_json(new)
        over, views, named = play_greedy(ws, until_my_turn(ws))
    assert named is not None, "the person never named a friend card (not the dealer?)"
    assert views[0]["find_friends"] and len(views[0]["seat_levels"]) == 4
    playing = [v for v in views if v["phase"] == "PLAY"]
    assert playing and all(v["friend_card"] == named for v in playing)
    for v in playing:  # the hidden friend is never sent; the sides appear with the reveal
        assert v["sides"][0] == "dealer"
        if v["friend_revealed"] < 0:
            assert v["friend"] is None and v["sides"].count(None) == 3
        else:
            assert v["sides"].count("dealer") == 2 and v["sides"][v["friend_revealed"]] == "dealer"
    story = [e["text"] for e in over["story"]]
    assert any("North (you) names the friend card " in t for t in story)
    assert sum(e["kind"] == "friend_revealed" for e in over["story"]) == 1
    assert over["view"]["friend"] is not None and None not in over["view"]["sides"]
    r = client.post("/api/replay", content=json.dumps(over["log"]))  # the viewer sees all
    assert r.status_code == 200, r.text
    frames = r.json()["frames"]
    assert frames[-1]["view"]["friend_card"] == named
    assert any(e["kind"] == "friend" for f in frames for e in f["events"])


@pytest.mark.parametrize("decks", [3, 4])
def test_three_and_four_decks_play_out_over_the_socket(client, decks):
    with client.websocket_connect("/ws") as ws:
        hello(ws)
        ws.send_json(NEW | {"decks": decks, "seed": 1,  # the failed-throw choice: max_choices
                            "rules": {"failed_throw_choice": "NEXT_PLAYER"}})
        over = play_out(ws)
    hand_size = {3: 39, 4: 52}[decks]  # 54 * decks cards: 4 hands and a kitty of 6 / 8
    tricks = [e for e in over["story"] if e["kind"] == "trick"]
    assert [t["data"]["number"] for t in tricks] == list(range(1, len(tricks) + 1))
    assert sum(len(p) for t in tricks for p in t["data"]["plays"]) == 4 * hand_size
    assert over["view"]["decks"] == decks
    assert max(p.count(c) for t in tricks for p in t["data"]["plays"] for c in p) <= decks
    r = client.post("/api/replay", content=json.dumps(over["log"]))
    assert r.status_code == 200 and len(r.json()["timeline"]) == len(tricks)


def test_a_match_is_played_to_its_end(client):
    with client.websocket_connect("/ws") as ws:
        hello(ws)
        ws.send_json(NEW | {"episode": "match", "agents": ["random"] * 4})
        over = play_out(ws)
    hands = [e for e in over["story"] if e["kind"] == "hand_over"]
    assert over["episode"] == "match" and len(hands) > 1
    assert hands[-1]["data"]["winner_team"] in (0, 1)
    assert "wins the match" in hands[-1]["text"]


def test_pimc_plays_from_the_page(client):
    """The search agent is a built-in spec; with number options it is allowed (its shipped
    networks are for 2 decks)."""
    with client.websocket_connect("/ws") as ws:
        hello(ws)
        ws.send_json(NEW | {"decks": 2, "agents": ["random", "pimc?worlds=2&candidates=2&recheck=1",
                                                   "random", "random"]})
        msg = until_my_turn(ws)
        for _ in range(6):  # a few of the person's moves, so that pimc decides in tricks
            legal = msg["legal"]
            action = 55 if legal["leading"] and msg["view"].get("selection") else \
                (legal["cards"] or [a["id"] for a in legal["actions"]])[0]
            ws.send_json({"type": "act", "action": action})
            msg = until_my_turn(ws)
        assert msg["type"] == "over" or msg["view"]["tricks_done"] >= 1


def test_agent_specs_the_page_may_not_ask_for(tmp_path):
    """``module:attr`` and string options need --allow-import; checkpoints must lie under an
    agent folder (``..`` does not escape it)."""
    from agents.web.allowed import SpecPolicy

    runs = tmp_path / "runs"
    (runs / "run1").mkdir(parents=True)
    (tmp_path / "outside").mkdir()
    strict = SpecPolicy((runs,))
    assert strict.check("heuristic") == "heuristic"
    assert strict.check("pimc?worlds=8&rollout=heuristic") == "pimc?worlds=8&rollout=heuristic"
    assert strict.check(str(runs / "run1")) == str((runs / "run1").resolve())
    assert strict.check("run1?sample=true") == f"{(runs / 'run1').resolve()}?sample=True"
    refused = {"agents.baselines.random:RandomAgent": "--allow-import",
               "pimc?prior_weights=/etc/x.pt": "could name a file",
               str(tmp_path / "outside"): "unknown agent",
               str(runs / ".." / "outside"): "unknown agent",
               "run2": "unknown agent"}
    for spec, words in refused.items():
        with pytest.raises(ValueError, match=words.replace("-", "\\-")):
            strict.check(spec)
    # the page does not learn whether a file exists: an existing path holding '?' is split
    # like any spec (before, it was kept whole and the error quoted it whole)
    (tmp_path / "outside" / "a?b=1").mkdir()
    for held in ("a", "c"):  # outside/a?b=1 exists, outside/c?b=1 does not
        with pytest.raises(ValueError, match=re.escape(f"unknown agent '{tmp_path / 'outside' / held}'")):
            strict.check(str(tmp_path / "outside" / f"{held}?b=1"))
    trusting = SpecPolicy((runs,), allow_import=True)
    spec = "agents.baselines.random:RandomAgent"
    assert trusting.check(spec) == spec

    client = TestClient(create_app(policy=strict))
    with client.websocket_connect("/ws") as ws:
        assert hello(ws)["allowed"]["allow_import"] is False
        ws.send_json(NEW | {"agents": ["random", spec, "random", "random"]})
        msg = ws.receive_json()
        assert msg["type"] == "error" and "seat 1" in msg["message"] and \
            "--allow-import" in msg["message"]
    client = TestClient(create_app(policy=trusting))
    with client.websocket_connect("/ws") as ws:
        hello(ws)
        ws.send_json(NEW | {"agents": ["random", spec, "random", "random"]})
        assert until_my_turn(ws)["type"] == "state"

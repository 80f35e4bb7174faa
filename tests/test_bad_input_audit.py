"""Bad input the other ``test_bad_input_*`` files do not reach (DESIGN.md §7): agent-spec options
checked against the factory's annotations, the CLIs' leftover flags and paths, the AEC env's agent
names. An error names the value and what is allowed; a CLI prints one line and exits 2; nothing
is silently coerced, ignored or written somewhere else.

Each table case is (input, substrings that must all appear in the message); the first substring
names the offending value.
"""

from __future__ import annotations

import numpy as np
import pytest

from agents.specs import parse, resolve
from shengji_env import Rules


def says(message: str, words) -> None:
    """Every one of ``words`` is in ``message`` (the first names the bad value)."""
    for w in words:
        assert w in message, f"{w!r} not in {message!r}"


BOT = "agents/bot/weights/bot.pt"  # a checkpoint file: its options go through load_policy

SPECS = [
    # a factory's int(worlds) or `if sample:` used to turn these into 2, 1, True, True
    ("pimc?worlds=2.5", ["worlds=2.5", "an integer"]),
    ("pimc?worlds=true", ["worlds=True", "an integer"]),
    ("pimc?worlds=abc", ["worlds='abc'", "an integer"]),
    ("pimc?worlds=.nan", ["worlds=nan", "an integer"]),
    ("pimc?worlds=1e9", ["worlds=1000000000.0", "an integer"]),  # was a MemoryError
    ("pimc?z=.inf", ["z=inf", "a finite number"]),
    ("pimc?time_ms=.nan", ["time_ms=nan", "a finite number or none"]),
    ("pimc?rollout=3", ["rollout=3", "a string"]),
    ("pimc?recheck=-1", ["recheck=-1", "at least 0"]),  # was an IndexError mid-search
    ("pimc?follow_cap=0", ["follow_cap=0", "at least 1"]),  # was accepted
    ("pimc?max_worlds=0", ["max_worlds=0", "at least 1"]),  # was accepted
    ("pimc?worlds=1000000000", ["worlds + recheck=1000000024", "at most 4096"]),  # MemoryError
    ("pimc?bury_worlds=100000", ["bury_worlds=100000", "at most 4096"]),
    ("bot?sample=maybe", ["sample='maybe'", "true or false"]),
    ("bot?sample=2", ["sample=2", "true or false"]),
    ("bot?threads=1.5", ["threads=1.5", "an integer or none"]),
    ("heuristic?strict=maybe", ["strict='maybe'", "true or false"]),
    ("heuristic?cache_size=big", ["cache_size='big'", "an integer"]),
    ("heuristic?cache_size=-1", ["cache_size=-1", "int >= 0"]),  # was accepted
    (f"{BOT}?sample=maybe", ["sample='maybe'", "true or false"]),
    (f"{BOT}?x=1", ["bot.pt?x=1", "load_policy(", "['x']"]),  # was "load_policy() got an..."
    # an empty name was Path("") — the working folder, loaded as a run folder
    ("?x=1", ["'?x=1'", "no agent name"]),
    ("  ?sample=true", ["no agent name"]),
    # the last of two values silently won
    ("heuristic?strict=true&strict=false", ["'strict' is given twice"]),
]


@pytest.mark.parametrize("spec, words", SPECS, ids=[s for s, _ in SPECS])
def test_bad_spec_options_name_the_option(spec, words):
    with pytest.raises(ValueError) as info:
        resolve(spec, Rules())
    says(str(info.value), words)


def test_spec_options_of_the_right_kind_still_build():
    pimc = resolve("pimc?worlds=3&z=1&seed=none&time_ms=", Rules())
    assert (pimc.worlds, pimc.z, pimc.seed, pimc.time_ms) == (3, 1.0, None, None)
    assert resolve("heuristic?strict=true&cache_size=8", Rules()).strict is True
    assert resolve(f"{BOT}?sample=true&threads=none", Rules()).sample is True
    assert parse("pimc?seed=none").options == {"seed": "none"}  # parse keeps the text


def test_many_workers_on_few_hands_start_no_idle_processes(monkeypatch):
    """``--workers 100000`` on one deal started 100,000 forked processes (a fork-started pool
    starts every worker at once): the pool is no larger than the chunks of work."""
    import concurrent.futures as cf

    from agents.baselines.random import RandomAgent
    from agents.eval import Deals, play_deals

    sizes = []

    class Pool(cf.ThreadPoolExecutor):  # records the size asked for; plays in threads
        def __init__(self, max_workers=None, initializer=None):
            sizes.append(max_workers)
            super().__init__(max_workers=min(max_workers, 4))

    monkeypatch.setattr(cf, "ProcessPoolExecutor", Pool)
    rec = play_deals((RandomAgent(), RandomAgent()), Deals.generate(1, Rules(), 0), Rules(),
                     workers=100_000)
    assert sizes == [2] and len(rec) == 2  # one deal: two hands, two chunks


def _deal_file(n):
    def make(root):
        from agents.eval import Deals

        Deals.generate(n, Rules(), 0).save(root / "d.npz")
        return ["--load-deals", str(root / "d.npz")]
    return make


EVAL_CASES = [
    # an empty path wrote the logs into the working folder / loaded no deals at all
    (["--save-games", ""], ["--save-games ''", "a path"]),
    (["--save-deals", " "], ["--save-deals ' '", "a path"]),
    (["--load-deals", ""], ["--load-deals ''", "a path"]),
    (lambda root: (root / "d.npz").write_text("x") and ["--save-games", str(root / "d.npz")],
     ["d.npz' is a file", "a folder"]),  # was "[Errno 20] Not a directory" after a hand
    (["--rule", "=1"], ["--rule '=1'", "no option name"]),  # was "unknown rules option(s) ;"
    (["--rule", "decks=2", "--rule", "decks=3"], ["--rule decks=2 --rule decks=3", "2 times"]),
    (lambda root: [*_deal_file(2)(root), "--deals", "5"], ["--deals 5", "holds 2 deals"]),
    (lambda root: ["--rule", "partnership=FIND_FRIEND", "--save-games", str(root / "g")],
     ["save_games=", "--save-games", "writes no game logs"]),
    (["heuristic?strict=maybe"], ["strict='maybe'", "true or false"]),
    (["--seating", "pairs"], ["--seating pairs", "find-friends only"]),  # was ignored
]


@pytest.mark.parametrize("argv, words", EVAL_CASES, ids=[w[0] for _, w in EVAL_CASES])
def test_eval_flags_that_were_dropped_are_refused(tmp_path, capsys, monkeypatch, argv, words):
    from agents.eval.cli import main

    monkeypatch.chdir(tmp_path)
    argv = argv(tmp_path) if callable(argv) else argv
    agents = ["random", "random"]
    if not argv[0].startswith("--"):
        agents, argv = ["random", *argv], []
    try:
        rc = main([*agents, "--no-progress", *argv])
    except SystemExit as e:
        rc = e.code
    err = capsys.readouterr().err.strip()
    assert rc == 2 and err.startswith("shengji-eval: ") and "\n" not in err, err
    says(err, words)
    assert sorted(p.name for p in tmp_path.iterdir()) in ([], ["d.npz"])  # nothing written


def test_eval_deal_file_with_its_own_count_still_plays(tmp_path, capsys):
    from agents.eval.cli import main

    argv = _deal_file(2)(tmp_path)
    assert main(["random", "random", "--no-progress", "--json", *argv, "--deals", "2"]) == 0
    assert '"deals": 2' in capsys.readouterr().out


PLAY_CASES = [
    (["--seed", "-1"], ["--seed -1", ">= 0"]),  # was the engine's traceback
    (["--seat", "5"], ["--seat", "invalid choice: 5"]),  # was a usage block and the error
    (["--partner", "os:system"], ["agent 'os:system'", "not Rules"]),  # was a traceback
    (["--partner", "pimc?worlds=2.5"], ["worlds=2.5", "an integer"]),
    (["--save-games", ""], ["--save-games ''", "a folder"]),
    # was a traceback after the whole hand was played: the log was lost
    (lambda root: (root / "f").write_text("x") and ["--save-games", str(root / "f")],
     ["--save-games", "it is a file"]),
]


@pytest.mark.parametrize("argv, words", PLAY_CASES, ids=[w[0] for _, w in PLAY_CASES])
def test_play_bad_flags_are_one_line_and_exit_2(tmp_path, capsys, monkeypatch, argv, words):
    from agents import play_cli
    from shengji_env import play

    argv = argv(tmp_path) if callable(argv) else argv
    monkeypatch.setattr(play, "input_fn", lambda prompt: pytest.fail("the table started"))
    with pytest.raises(SystemExit) as info:
        play_cli.main(["--no-color", *argv])
    err = capsys.readouterr().err.strip()
    assert info.value.code == 2 and err.startswith("shengji-play: ") and "\n" not in err, err
    says(err, words)


def test_play_log_that_cannot_be_written_is_one_line(tmp_path, capsys, monkeypatch):
    from agents import play_cli
    from shengji_env import gamelog, play

    def refuse(self, folder):
        raise PermissionError(13, "Permission denied", str(folder))

    monkeypatch.setattr(play, "input_fn", lambda prompt: "quit")
    monkeypatch.setattr(gamelog.GameLog, "save", refuse)
    assert play_cli.main(["--no-color", "--save-games", str(tmp_path / "logs")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("shengji-play: could not write the game log") and "\n" not in err, err


def _aec(call):
    def run():
        from shengji_env import env

        e = env()
        e.reset(seed=0)
        call(e)
    return run


AEC_CASES = [  # tuple.index's "x not in tuple" named neither the agent nor the agents
    (_aec(lambda e: e.observe("player_9")), ["agent 'player_9'", "player_0, player_1"]),
    (_aec(lambda e: e.observe(0)), ["agent 0", "player_3"]),
    (_aec(lambda e: e.unwrapped.legal_actions("p1")), ["agent 'p1'", "player_0"]),
    (_aec(lambda e: e.unwrapped.legal_actions("")), ["agent ''", "player_0"]),  # was the selection
]


@pytest.mark.parametrize("call, words", AEC_CASES, ids=[w[0] for _, w in AEC_CASES])
def test_aec_unknown_agent_is_named(call, words):
    with pytest.raises(ValueError) as info:
        call()
    says(str(info.value), words)


WEB_CASES = [  # checked before the server starts (and before the web extra is needed)
    (["--port", "70000"], ["--port 70000", "1-65535"]),  # was uvicorn's OverflowError
    (["--port", "-1"], ["--port -1", "1-65535"]),
    (["--port", "abc"], ["--port", "'abc'"]),  # was argparse's usage block
    (["--max-games", "0"], ["--max-games 0", ">= 1"]),  # was "busy" for every game
    (["--host", ""], ["--host ''", "address"]),
    (lambda root: ["--save-games", str(root / "f")], ["--save-games", "it is a file"]),
    (lambda root: ["--agent-dir", str(root / "f")], ["--agent-dir", "it is a file"]),
]


@pytest.mark.parametrize("argv, words", WEB_CASES, ids=[w[0] for _, w in WEB_CASES])
def test_web_bad_flags_are_one_line_and_exit_2(tmp_path, capsys, argv, words):
    from agents.web import app

    (tmp_path / "f").write_text("x")
    argv = argv(tmp_path) if callable(argv) else argv
    with pytest.raises(SystemExit) as info:
        app.main(argv)
    err = capsys.readouterr().err.strip()
    assert info.value.code == 2 and err.startswith("shengji-web: ") and "\n" not in err, err
    says(err, words)


def test_web_without_its_extra_says_how_to_install_it(capsys, monkeypatch):
    """``import agents.web.app`` raised ModuleNotFoundError (a traceback from ``shengji-web``)
    when the 'web' extra was not installed."""
    from agents.web import app

    monkeypatch.setattr(app, "_MISSING", ModuleNotFoundError("No module named 'starlette'"))
    assert app.main(["--port", "8765"]) == 2
    err = capsys.readouterr().err.strip()
    assert "pip install 'shengji-rl[web]'" in err and "starlette" in err and "\n" not in err


@pytest.mark.parametrize("argv, words", [
    (["--config", ""], ["--config ''", "a path"]),  # was "give --config ..." though it was given
    (["--resume", " "], ["--resume ' '", "a path"]),
])
def test_train_empty_paths_are_named(tmp_path, capsys, monkeypatch, argv, words):
    import importlib.util
    from pathlib import Path

    spec = importlib.util.spec_from_file_location(
        "train", Path(__file__).resolve().parents[1] / "train.py")
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    monkeypatch.chdir(tmp_path)
    assert train.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("train.py: ") and "\n" not in err, err
    says(err, words)
    assert list(tmp_path.iterdir()) == []


def _game_log():
    import numpy as np

    from shengji_env.core import Engine
    from shengji_env.gamelog import GameLog

    eng = Engine(Rules(), 1, 0)
    s = eng.reset(seeds=[3])
    log = GameLog.start(eng, s, ["a"] * 4, 3)
    for _ in range(3):
        s, _, _ = eng.step(s, np.array([int(np.flatnonzero(eng.legal_mask(s)[0])[0])]))
    return log.finish(eng, s).to_json()


LOG_FIELDS = [  # each failed deep in replay with an unnamed error (rules=[]: AttributeError)
    ({"rules": []}, ["field rules=[]", "rules options"]),
    ({"engine": {}}, ["field engine={}", "episode, reward, levels and dealer"]),
    ({"seed": 1.5}, ["field seed=1.5", "an int"]),
    ({"given_deck": "yes"}, ["field given_deck='yes'", "true or false"]),  # was read as True
    ({"deck": None}, ["field deck=None", "card ids"]),
    ({"agents": "abcd"}, ["field agents='abcd'", "agent names"]),  # was accepted
    ({"decisions": [[0]]}, ["field decisions=[[0]]", "[seat, action id]"]),
    ({"decisions": [[None, 1]]}, ["field decisions=[[None, 1]]", "[seat, action id]"]),
    ({"decisions": "x" * 100}, ["field decisions='xxxx", "...", "[seat, action id]"]),
    ({"result": 3}, ["field result=3", "null or an object"]),
]


@pytest.mark.parametrize("change, words", LOG_FIELDS, ids=[w[0] for _, w in LOG_FIELDS])
def test_game_log_fields_of_the_wrong_type_are_named(change, words):
    from shengji_env.gamelog import GameLog

    with pytest.raises(ValueError) as info:
        GameLog.from_json(_game_log() | change)
    says(str(info.value), words)


@pytest.mark.parametrize("data, words", [
    (b"{not json", ["log.json is not a readable game log", "line 1"]),
    (b"\xff\xfe", ["log.json is not a readable game log"]),  # was a UnicodeDecodeError
    (b"[" * 100_000 + b"]" * 100_000, ["log.json is not a readable game log"]),  # RecursionError
    (b'{"format": "shengji-game-log", "version": 1}', ["log.json", "lacks"]),
])
def test_game_log_file_that_is_not_one_names_the_file(tmp_path, data, words):
    from shengji_env.gamelog import GameLog

    (tmp_path / "log.json").write_bytes(data)
    with pytest.raises(ValueError) as info:
        GameLog.load(tmp_path / "log.json")
    says(str(info.value), words)


def test_a_good_game_log_still_replays(tmp_path):
    from shengji_env.gamelog import GameLog, replay

    path = GameLog.from_json(_game_log()).save(tmp_path)
    assert len(list(replay(GameLog.load(path))[2])) == 3


def test_web_message_nested_too_deeply_is_a_bad_message_not_a_crash():
    """30,000 '[' fit the 64 KiB message limit; ``json.loads`` raised RecursionError, which
    ended the page's game (close code 1011) instead of answering ``{"type": "error"}``."""
    from agents.web.app import BadMessage, Limits, parse_message

    for text in ("[" * 30_000, '{"type": "act", "x": ' + "[" * 30_000 + "]" * 30_000 + "}"):
        assert len(text) <= Limits().max_message
        with pytest.raises(BadMessage, match="nested too deeply"):
            parse_message(text, Limits())


def _deals_call(*args, **kw):
    def call():
        from agents.eval import Deals

        if args and args[0] == "init":
            good = Deals.generate(1, Rules(), 0)
            return Deals(good.decks, good.first_drawers, **kw)
        return Deals.generate(*args, **kw)
    return call


DEALS_CASES = [  # the messages named neither the argument nor what is allowed
    (_deals_call(2.5, Rules()), ValueError, ["num_deals=2.5", "int >= 1"]),
    (_deals_call(True, Rules()), ValueError, ["num_deals=True", "int >= 1"]),  # one deal was dealt
    (_deals_call("3", Rules()), ValueError, ["num_deals='3'", "int >= 1"]),
    (_deals_call(2, Rules(), seed=-1), ValueError, ["seed=-1", "int >= 0"]),
    (_deals_call(2, Rules(), seed=1.5), ValueError, ["seed=1.5", "int >= 0"]),
    (_deals_call(2, "decks=2"), TypeError, ["shengji_env.Rules", "str"]),
    # a deal set that saved but could not be loaded back
    (_deals_call("init", seed="x"), ValueError, ["seed='x'", "int >= 0"]),
    (_deals_call("init", seed=1.5), ValueError, ["seed=1.5", "int >= 0"]),
]


@pytest.mark.parametrize("call, exc, words", DEALS_CASES, ids=[w[0] for _, _, w in DEALS_CASES])
def test_deals_arguments_are_named(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    says(str(info.value), words)


def test_deals_with_numpy_ints_still_round_trip(tmp_path):
    import numpy as np

    from agents.eval import Deals

    d = Deals.generate(np.int64(2), Rules(), seed=np.int64(5))
    d.save(tmp_path / "d.npz")
    back = Deals.load(tmp_path / "d.npz")
    assert back.seed == 5 and type(back.seed) is int and np.array_equal(back.decks, d.decks)


def _checkpoint(tmp_path, **changes):
    import torch

    from agents.checkpoint import rules_to_dict
    from agents.learners.nets import PolicyValueNet

    net = PolicyValueNet(Rules(), hidden=8)
    state = {"format": "shengji-rl/ppo", "version": 2, "model": net.state_dict(),
             "net": net.spec(), "rules": rules_to_dict(Rules()), **changes}
    torch.save(state, tmp_path / "ckpt.pt")
    return tmp_path / "ckpt.pt"


def test_checkpoint_with_nan_weights_is_refused(tmp_path):
    """A diverged run's weights loaded and played (a masked argmax over NaN logits)."""
    import torch

    from agents.checkpoint import load_policy
    from agents.learners.nets import PolicyValueNet

    model = PolicyValueNet(Rules(), hidden=8).state_dict()
    name = next(k for k, v in model.items() if v.is_floating_point())
    model[name] = torch.full_like(model[name], float("nan"))
    with pytest.raises(ValueError, match=f"weight {name} holds NaN or infinite"):
        load_policy(_checkpoint(tmp_path, model=model), Rules())
    assert load_policy(_checkpoint(tmp_path), Rules()) is not None  # finite weights still load


def test_checkpoint_version_true_is_not_version_1(tmp_path):
    from agents.checkpoint import load_checkpoint

    with pytest.raises(ValueError, match="checkpoint version True"):
        load_checkpoint(_checkpoint(tmp_path, version=True))


@pytest.mark.parametrize("text, words", [
    # PyYAML kept the last 'run' silently: num_envs, total_updates and run_root were lost
    ("run: {name: t, num_envs: 2}\nlearner: ppo\nrun: {seed: 1}\n",
     ["cfg.yaml is not valid YAML", "key 'run' is given twice", "first on line 1", "line 3"]),
    ("run:\n  name: t\n  seed: 1\n  seed: 2\n", ["key 'seed' is given twice", "first on line 3"]),
])
def test_train_config_with_a_key_given_twice_is_refused(tmp_path, text, words):
    from agents.config import ConfigError
    from agents.learners import config as train_config

    (tmp_path / "cfg.yaml").write_text(text)
    with pytest.raises(ConfigError) as info:
        train_config.load(tmp_path / "cfg.yaml")
    says(str(info.value), words)


def test_train_config_merge_keys_may_still_be_overridden(tmp_path):
    from agents.learners import config as train_config

    (tmp_path / "cfg.yaml").write_text(
        "base: &b {name: t, num_envs: 2, total_updates: 1}\nrun:\n  <<: *b\n  num_envs: 4\n")
    with pytest.raises(Exception, match="unknown config key 'base'"):  # past the YAML reader
        train_config.load(tmp_path / "cfg.yaml")


def test_web_rules_decks_is_named():
    from agents.web.app import BadMessage, Limits, new_game_options

    with pytest.raises(BadMessage, match=r"rules\.decks=3: give the number of decks as the "
                                         r"message's 'decks' field"):
        new_game_options({"type": "new", "rules": {"decks": 3}}, Limits())


def test_web_replay_api_answers_a_deeply_nested_body_with_400(tmp_path):
    """``json.loads`` raised RecursionError: a 500 for a 100 kB body (the limit is 2 MiB), from
    POST /api/replay and from a saved game in the viewer's folder."""
    pytest.importorskip("starlette")
    pytest.importorskip("httpx2")
    from starlette.testclient import TestClient

    from agents.web.app import create_app

    (tmp_path / "deep.json").write_text("[" * 100_000)
    client = TestClient(create_app(games_dir=str(tmp_path)), raise_server_exceptions=False)
    for r in (client.post("/api/replay", content=b"[" * 100_000),
              client.get("/api/games/deep.json")):
        assert r.status_code == 400 and "nested too deeply" in r.json()["error"], r.text


def test_web_host_and_port_it_cannot_listen_on_are_one_line(capsys):
    """uvicorn failed only after "open http://..." was printed, with exit status 3 and
    "ERROR: [Errno -2] Name or service not known" (no host named)."""
    import socket

    from agents.web import app

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for argv, words in ((["--host", "nosuch.invalid"], ["--host 'nosuch.invalid'", "address"]),
                            (["--port", str(port)], [f"--port {port}", "cannot listen there"])):
            with pytest.raises(SystemExit) as info:
                app.main(argv)
            out, err = capsys.readouterr()
            assert info.value.code == 2 and "\n" not in err.strip() and out == "", (out, err)
            says(err, words)


def test_the_play_command_prints_no_traceback(tmp_path):
    """The real command (the table above runs ``main`` in-process): ``--seed -1`` was the
    engine's traceback."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    cli = subprocess.run([sys.executable, "-m", "agents.play_cli", "--seed", "-1"], cwd=tmp_path,
                         env={**os.environ, "PYTHONPATH": str(root)}, input="quit\n",
                         capture_output=True, text=True, timeout=120, check=False)
    assert cli.returncode == 2 and cli.stdout == "", (cli.stdout, cli.stderr)
    assert cli.stderr == ("shengji-play: --seed -1: expected an int >= 0 "
                          "(see shengji-play --help)\n")


def test_train_config_resolve_leaves_the_callers_mapping_alone():
    """``--set eval.opponents.random=3`` was written into the caller's nested dict: a second
    ``resolve`` of the same mapping (a sweep) silently started from the first's overrides."""
    import copy

    from agents.learners import config as train_config

    data = {"run": {"name": "t", "num_envs": 2, "total_updates": 1}, "model": {"hidden": 8},
            "learner": [{"name": "ppo", "updates": 1}],
            "eval": {"every": 0, "opponents": {"random": 0}, "final_deals": 1}}
    before = copy.deepcopy(data)
    got = train_config.resolve(data, ["eval.opponents.random=3", "learner.ppo.gamma=0.5"])
    assert data == before
    assert train_config.resolve(data).eval.opponents != got.eval.opponents


@pytest.mark.parametrize("call, exc, words", [
    (lambda: resolve("heuristic", "decks=2"), TypeError, ["rules must be a shengji_env.Rules",
                                                          "str 'decks=2'"]),
    (lambda: resolve("random", {"decks": 1}), TypeError, ["dict {'decks': 1}"]),  # was ignored
    (lambda: resolve(3, Rules()), TypeError, ["agent spec 3 (int)", "AgentSpec"]),
    (lambda: resolve(None, Rules()), TypeError, ["agent spec None (NoneType)"]),
    (lambda: __import__("agents.specs").specs.register("three", 3), TypeError,
     ["agent 'three': factory 3 (int)", "callable"]),  # was "'int' object is not callable" later
], ids=["rules-str", "rules-dict", "spec-int", "spec-None", "register-int"])
def test_resolve_and_register_name_the_wrong_type(call, exc, words):
    from agents.specs import BUILTIN

    with pytest.raises(exc) as info:
        call()
    says(str(info.value), words)
    assert "three" not in BUILTIN


def test_a_batch_the_machine_cannot_hold_is_refused_when_the_engine_is_built(monkeypatch):
    from shengji_env.core import engine
    from shengji_env.core.engine import Engine

    # a 10**12-game engine was built and failed only at reset, with numpy's MemoryError
    with pytest.raises(ValueError) as e:
        Engine(Rules(), 10**12)
    says(str(e.value), ["num_games=1,000,000,000,000", "GiB", "at most"])
    monkeypatch.setattr(engine, "physical_memory", lambda: 64 * engine.BYTES_PER_GAME)
    Engine(Rules(), 64)
    with pytest.raises(ValueError, match="at most 64 games"):
        Engine(Rules(), 65)
    monkeypatch.setattr(engine, "physical_memory", lambda: None)  # the OS does not say
    Engine(Rules(), 10**12)


@pytest.mark.parametrize("games", [1, 3])
def test_a_state_of_another_deck_count_is_refused_by_step_mask_and_observe(games):
    from shengji_env.core.engine import Engine

    # was silently read with the wrong copies per card (legal masks and steps of nonsense)
    three = Engine(Rules(decks=3), games, seed=0).reset()
    two = Engine(Rules(decks=2), games, seed=0)
    for call in (lambda: two.legal_mask(three), lambda: two.observe(three),
                 lambda: two.step(three, np.zeros(games, dtype=np.int64))):
        with pytest.raises(ValueError) as e:
            call()
        says(str(e.value), ["3 deck(s)", "decks=2"])
    Engine(Rules(decks=3), games).legal_mask(three)


def test_train_num_envs_the_machine_cannot_hold_makes_no_run_folder(tmp_path, capsys,
                                                                    monkeypatch):
    import importlib.util
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("train", root / "train.py")
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    monkeypatch.chdir(tmp_path)
    # was a MemoryError traceback at the first reset, after the run folder had been made
    assert train.main(["--config", str(root / "configs/ppo_selfplay.yaml"), "--set",
                       "run.num_envs=100000000", "--set", f"run.run_root={tmp_path}"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("train.py: run.num_envs: num_games=100,000,000") and "\n" not in err
    assert list(tmp_path.iterdir()) == []

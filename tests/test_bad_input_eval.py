"""Bad input to ``shengji-eval`` and deal files (DESIGN.md §7): one line on stderr, exit 2; and no
NaN in a report.

``cli.main(argv)`` runs in-process for the table (each case: extra argv or a builder of it, and
substrings that must all appear in the message; the first names the value); one subprocess run
checks that the command prints no traceback.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.eval import Deals, HandRecords, summarize
from agents.eval.cli import format_report, main
from shengji_env import Rules

GOOD = Deals.generate(2, Rules(), 0)


def npz(**fields):
    base = {"format_version": 1, "decks": GOOD.decks, "first_drawers": GOOD.first_drawers}
    return lambda path: np.savez(path, **{k: v for k, v in {**base, **fields}.items() if v is not None})


def raw(data: bytes):
    return lambda path: path.write_bytes(data)


def truncated(path: Path):
    GOOD.save(path)
    path.write_bytes(path.read_bytes()[:120])


def npy(path: Path):
    with open(path, "wb") as f:
        np.save(f, np.zeros(3))


DEAL_FILES = [
    (raw(b""), ["deals.npz is not a deal set", "empty"]),
    (truncated, ["deals.npz is not a deal set", "truncated"]),
    (raw(np.random.default_rng(2).bytes(500)), ["deals.npz is not a deal set"]),
    (raw(b"hello"), ["deals.npz is not a deal set"]),
    (npy, ["deals.npz holds a single array (3,)", "not a deal set"]),
    (npz(decks=np.zeros((2, 108), np.int8)), ["deal 0 does not hold every card id exactly 2 times"]),
    (npz(decks=np.zeros((0, 108), np.int8), first_drawers=np.zeros(0, np.int8)),
     ["at least one deal; got 0"]),
    (npz(decks=GOOD.decks + 0.5), ["decks must be integers", "float64", "27.5"]),
    (npz(decks=GOOD.decks.astype(float)), ["decks must be integers", "float64"]),
    (npz(decks=GOOD.decks.astype(str)), ["decks must be integers", "<U"]),
    (npz(first_drawers=np.array([0.5, 1.0])), ["first_drawers must be integers", "0.5"]),
    (npz(first_drawers=np.array([0, 4])), ["first_drawers", "seats 0-3", "4"]),
    (npz(format_version="one"), ["format_version='one'", "one integer"]),
    (npz(format_version=1.5), ["format_version=1.5", "one integer"]),
    (npz(format_version=2), ["format version 2", "reads version 1"]),
    (npz(seed=1.5), ["seed=1.5", "one integer"]),
    (npz(seed="7"), ["seed='7'", "one integer"]),
    (npz(decks=None), ["missing ['decks']"]),
    (lambda path: path.mkdir(), ["deals.npz is a folder"]),
    (lambda path: None, ["no deal file", "deals.npz"]),
]


def deal_file(write):
    def make(root: Path) -> list[str]:
        write(root / "deals.npz")
        return ["--load-deals", str(root / "deals.npz")]
    return make


def bad_checkpoint(root: Path) -> list[str]:
    (root / "ckpt.pt").write_bytes(b"\0" * 64)
    return [str(root / "ckpt.pt")]


def wrong_format(root: Path) -> list[str]:
    torch.save({"format": "other"}, root / "other.pt")
    return [str(root / "other.pt")]


CLI_CASES = [
    *[(deal_file(w), words) for w, words in DEAL_FILES],
    (bad_checkpoint, ["ckpt.pt is not a readable torch checkpoint", "truncated"]),
    (wrong_format, ["other.pt is not a shengji-rl checkpoint", "format 'other'"]),
    (["nosuchagent"], ["unknown agent 'nosuchagent'", "heuristic"]),
    (["--deals", "0"], ["--deals 0", ">= 1"]),
    (["--deals", "-3"], ["--deals -3", ">= 1"]),
    (["--deals", "two"], ["--deals", "'two'"]),
    (["--workers", "0"], ["--workers 0", ">= 1"]),
    (["--seed", "-1"], ["--seed -1", ">= 0"]),
    (["--decks", "5"], ["decks=5", "1-4"]),
    (["--rule", "bogus=1"], ["bogus", "known options"]),
    (["--rule", "kitty_multiplier=NOPE"], ["kitty_multiplier='NOPE'", "POWER"]),
    (["--rule", "nokey"], ["--rule 'nokey'", "NAME=VALUE"]),
    (["--rule", "decks=x"], ["decks='x'", "1-4"]),
    (["--rule", "throw_decomposition=LEADER_DECLARED"], ["LEADER_DECLARED", "not playable"]),
    (lambda root: (root / "folder").mkdir() or ["--save-deals", str(root / "folder")],
     ["folder': it is a folder", "file name"]),
    (["--bogus"], ["unrecognized arguments: --bogus"]),
]


def _id(case) -> str:
    argv, words = case
    return words[0][:40] if callable(argv) else " ".join(argv)


@pytest.mark.parametrize("argv, words", CLI_CASES, ids=[_id(c) for c in CLI_CASES])
def test_bad_input_is_one_line_and_exit_2(tmp_path, capsys, argv, words):
    if callable(argv):
        argv = argv(tmp_path)
    agents = ["random", "random"]
    if not argv[0].startswith("--"):  # an agent spec under test
        agents, argv = ["random", *argv], []
    try:
        rc = main([*agents, "--deals", "1", "--no-progress", *argv])
    except SystemExit as e:  # argparse errors
        rc = e.code
    assert rc == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("shengji-eval: ") and "\n" not in err, err
    for w in words:
        assert w in err, f"{w!r} not in {err!r}"


def test_save_deals_writes_exactly_where_asked(tmp_path, capsys):
    path = tmp_path / "x.dat"
    assert main(["random", "random", "--deals", "1", "--no-progress", "--save-deals", str(path)]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.dat"]
    back = Deals.load(path)
    assert np.array_equal(back.decks, Deals.generate(1, Rules(), 0).decks) and back.seed == 0


def test_a_side_with_no_hands_says_so_and_points_cis_stay_above_0():
    rec = HandRecords(deal=np.array([0, 0, 1, 1], np.int32), a_seats=np.array([0, 1, 0, 1], np.int8),
                      dealer=np.array([1, 1, 3, 3], np.int8), a_dealer=np.zeros(4, bool),
                      trump=np.zeros(4, np.int8), attacker_points=np.array([0, 0, 0, 60], np.int16),
                      a_reward=np.array([1, -1, 1, -1], np.float32))
    s = summarize(rec)  # A never was the dealer side
    assert s["win_rate_as_dealer"] is None and s["attacker_points_defending"] is None
    lo, hi = s["attacker_points_attacking_ci"]
    assert lo == 0.0 and hi > 15  # the t interval would reach -32.7
    rep = {"deals": 2, "deal_seed": 0, "seed": 0, "rules": {"decks": 2}, "agents": ["a", "b"],
           "matches": [{"a": "a", "b": "b", **s}], "ratings": [], "wall_time_s": 1.0,
           "hands_per_s": 4.0}
    text = format_report(rep)
    assert "nan" not in text.lower() and "no hands (a never defended)" in text
    assert "no hands as dealer side" in text
    json.dumps(rep, allow_nan=False)


def test_the_command_prints_no_traceback(tmp_path):
    """The real command on a broken deal file (the table above runs ``main`` in-process: an
    uncaught exception there would fail the case)."""
    (tmp_path / "deals.npz").write_bytes(b"")
    cli = subprocess.run([sys.executable, "-m", "agents.eval.cli", "random", "random",
                          "--load-deals", "deals.npz"], cwd=tmp_path,
                         env={**os.environ, "TQDM_DISABLE": "1"}, capture_output=True, text=True,
                         timeout=120, check=False)
    assert cli.returncode == 2 and "Traceback" not in cli.stderr, cli.stderr
    assert cli.stderr == "shengji-eval: deals.npz is not a deal set: the file is empty\n"

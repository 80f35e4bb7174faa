"""Broken checkpoints (DESIGN.md §7): ``load_checkpoint`` / ``load_policy`` / an agent spec naming
the file say what is wrong with it, and nothing in an unsafe file runs (``weights_only=True``).

Each case is (a writer of the broken file, exception type, substrings that must all appear in
the message); the first substring names the file or the offending value.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.checkpoint import check_resumable, load_checkpoint, load_policy, rules_to_dict, save_checkpoint
from agents.learners.nets import PolicyValueNet
from agents.specs import resolve
from shengji_env import Rules


def valid_state() -> dict:
    net = PolicyValueNet(Rules(), hidden=8)
    return {"model": net.state_dict(), "net": net.spec(), "rules": rules_to_dict(Rules())}


class Evil:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


def raw(data: bytes):
    return lambda path: path.write_bytes(data)


def saved(obj):
    return lambda path: torch.save(obj, path)


def changed(**changes):
    def write(path: Path):
        state = {"format": "shengji-rl/ppo", "version": 2, **valid_state()}
        for k, v in changes.items():
            if v is None:
                state.pop(k)
            else:
                state[k] = v
        torch.save(state, path)
    return write


def truncated(path: Path):
    save_checkpoint(valid_state(), path.parent / "run", 1, learner="ppo")
    data = (path.parent / "run" / "checkpoints" / "update_0000001.pt").read_bytes()
    path.write_bytes(data[: len(data) // 2])


RANDOM = np.random.default_rng(0).bytes(4096)  # seeded: the same bytes every run

LOAD_CASES = [
    (raw(b""), ValueError, ["ckpt.pt is not a readable torch checkpoint", "empty"]),
    (truncated, ValueError, ["ckpt.pt is not a readable", "truncated"]),
    (raw(RANDOM), ValueError, ["ckpt.pt is not a readable", "not a file torch.save"]),
    (raw(b"hello: world\n"), ValueError, ["ckpt.pt is not a readable"]),
    (saved({"x": Evil()}), ValueError, ["ckpt.pt", "not plain data", "nothing was run", "system"]),
    (saved([1, 2, 3]), ValueError, ["format 'list'", "'shengji-rl/<learner>'"]),
    (saved({"format": "other/ppo"}), ValueError, ["format 'other/ppo'"]),
    (changed(format=5), ValueError, ["format 5"]),
    (changed(version=99), ValueError, ["checkpoint version 99", "versions 1 and 2"]),
    (changed(version=None), ValueError, ["checkpoint version None"]),
    (changed(model=None, rules=None), ValueError, ["lacks model, rules"]),
    (changed(rules="decks=2"), ValueError, ["rules is str 'decks=2'", "dict"]),
    (changed(model=[1]), ValueError, ["model is list [1]", "dict"]),
]

POLICY_CASES = LOAD_CASES + [
    (changed(net={"hidden": 16, "blocks": 1, "card_head": 0}), ValueError,
     ["weights do not fit its network {'hidden': 16", "size mismatch"]),
    (changed(net={"hiddn": 8}), ValueError, ["net spec {'hiddn': 8}", "hidden"]),
    (changed(net={"hidden": -1}), ValueError, ["net spec {'hidden': -1}", "ints >= 0"]),
    (changed(rules={"decks": 7}), ValueError, ["rules are not valid", "decks=7"]),
    (changed(rules={"bogus": 1}), ValueError, ["rules are not valid", "bogus"]),
]


def _ids(cases):
    return [f"{i}-{c[2][0][:30]}" for i, c in enumerate(cases)]


@pytest.mark.parametrize("write, exc, words", LOAD_CASES, ids=_ids(LOAD_CASES))
def test_load_checkpoint_says_what_is_wrong(tmp_path, monkeypatch, write, exc, words):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "ckpt.pt")
    with pytest.raises(exc) as info:
        load_checkpoint(tmp_path / "ckpt.pt")
    for w in words:
        assert w in str(info.value), f"{w!r} not in {str(info.value)!r}"
    assert not (tmp_path / "PWNED").exists()


@pytest.mark.parametrize("write, exc, words", POLICY_CASES, ids=_ids(POLICY_CASES))
def test_a_broken_checkpoint_as_an_agent_says_what_is_wrong(tmp_path, monkeypatch, write, exc, words):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "ckpt.pt")
    for load in (lambda: load_policy(tmp_path / "ckpt.pt"), lambda: resolve("ckpt.pt", Rules())):
        with pytest.raises(exc) as info:
            load()
        for w in words:
            assert w in str(info.value), f"{w!r} not in {str(info.value)!r}"
    assert not (tmp_path / "PWNED").exists()


FOLDER_CASES = [
    (lambda p: None, FileNotFoundError, ["no checkpoint file or run folder", "missing"]),
    (lambda p: p.mkdir(), FileNotFoundError, ["no checkpoint (update_*.pt)", "run folder"]),
]


@pytest.mark.parametrize("make, exc, words", FOLDER_CASES, ids=_ids(FOLDER_CASES))
def test_missing_files_and_empty_folders(tmp_path, make, exc, words):
    make(tmp_path / "missing")
    with pytest.raises(exc) as info:
        load_checkpoint(tmp_path / "missing")
    for w in words:
        assert w in str(info.value)


RESUME_CASES = [
    ({}, ["lacks optimizer, config", "not resumed"]),
    ({"optimizer": {}, "config": {}, "learners": {}, "update": 1.5, "global_step": 1, "hands": 1,
      "elapsed_s": 0.0, "cpu_s": 0.0, "train_s": 0.0, "rng": {}}, ["update=1.5 (float)"]),
    ({"optimizer": {}, "config": {}, "learners": {}, "update": True, "global_step": 1, "hands": 1,
      "elapsed_s": 0.0, "cpu_s": 0.0, "train_s": 0.0, "rng": {}}, ["update=True (bool)"]),
    ({"optimizer": {}, "config": {}, "learners": {}, "update": -1, "global_step": 1, "hands": 1,
      "elapsed_s": 0.0, "cpu_s": 0.0, "train_s": 0.0, "rng": {}}, ["update=-1", ">= 0"]),
    ({"optimizer": {}, "config": {}, "learners": {}, "update": 1, "global_step": 1, "hands": 1,
      "elapsed_s": 0.0, "cpu_s": 0.0, "train_s": 0.0, "rng": {"numpy": {}}}, ["rng lacks torch, sample"]),
]


@pytest.mark.parametrize("extra, words", RESUME_CASES, ids=[w[0] for _, w in RESUME_CASES])
def test_a_policy_checkpoint_is_not_resumable(extra, words):
    with pytest.raises(ValueError) as info:
        check_resumable({**valid_state(), **extra}, "x.pt")
    for w in words:
        assert w in str(info.value), f"{w!r} not in {str(info.value)!r}"


def test_saves_are_fsynced_before_the_rename(tmp_path, monkeypatch):
    calls = []
    real_fsync, real_replace = os.fsync, os.replace
    monkeypatch.setattr(os, "fsync", lambda fd: (calls.append("fsync"), real_fsync(fd))[1])
    monkeypatch.setattr(os, "replace", lambda a, b: (calls.append("replace"), real_replace(a, b))[1])
    path = save_checkpoint(valid_state(), tmp_path, 3, learner="ppo")
    assert calls[:2] == ["fsync", "replace"] and path.name == "update_0000003.pt"
    assert not list(path.parent.glob("*.tmp")) and load_checkpoint(tmp_path)["format"] == "shengji-rl/ppo"

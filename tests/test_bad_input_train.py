"""Bad input to ``train.py`` (DESIGN.md §7): one clear line on stderr and exit 2, detected before a
run folder is created; and every float option refuses NaN and infinities.

``train.main(argv)`` runs in-process (faithful: it is what ``python train.py`` calls); two
subprocess runs check that the command itself prints no traceback. Each case is (argv or a
builder of argv, substrings that must all appear in the message); the first names the value.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import subprocess
import sys
import typing
from pathlib import Path

import numpy as np
import pytest
import torch
import yaml

from agents.checkpoint import rules_to_dict, save_checkpoint
from agents.config import ConfigError, build
from agents.learners import LEARNERS, runs
from agents.learners import config as train_config
from agents.learners.nets import PolicyValueNet
from shengji_env import Rules

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("train", ROOT / "train.py")
train = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(train)

TINY = {"run": {"name": "tiny", "num_envs": 2, "total_updates": 1},
        "model": {"hidden": 8}, "learner": "ppo",
        "eval": {"every": 0, "opponents": {"random": 0}, "final_deals": 1}}


@pytest.fixture
def where(tmp_path, monkeypatch):
    """A folder with a valid tiny config and helper files; runs go to ``runs/``."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump({**TINY, "run": {**TINY["run"],
                                                                       "run_root": "runs"}}))
    (tmp_path / "bad.yaml").write_text("run: {name: [\n")
    (tmp_path / "tabs.yaml").write_text("run:\n\tname: x\n")
    (tmp_path / "binary.yaml").write_bytes(bytes(range(256)))
    (tmp_path / "list.yaml").write_text("- 1\n- 2\n")
    (tmp_path / "folder.yaml").mkdir()
    (tmp_path / "a_file").write_text("x")
    return tmp_path


def _with_learner(folder: Path, learner: str, *sets: str) -> list[str]:
    """argv for the tiny config with another learner (a config file: ``--set learner=`` is not
    a key)."""
    (folder / f"{learner}.yaml").write_text(yaml.safe_dump(
        {**TINY, "run": {**TINY["run"], "run_root": "runs"}, "learner": learner}))
    return ["--config", f"{learner}.yaml", *(x for kv in sets for x in ("--set", kv))]


def fake_run(folder: Path, hidden: int = 8, update: int = 1, finished: bool = False) -> Path:
    """A run folder with one resumable checkpoint at ``update``, made without training."""
    cfg = train_config.resolve({**TINY, "run": {**TINY["run"], "run_root": str(folder.parent)}})
    rules = Rules()
    net = PolicyValueNet(rules, hidden=hidden)
    opt = torch.optim.Adam(net.parameters(), eps=1e-5)
    state = {"model": net.state_dict(), "optimizer": opt.state_dict(), "net": net.spec(),
             "rules": rules_to_dict(rules), "config": cfg.as_dict(), "learners": {},
             "update": update, "global_step": 100 * update, "hands": 2 * update,
             "elapsed_s": 1.0, "cpu_s": 1.0, "train_s": 1.0,
             "rng": {"numpy": {"bit_generator": "PCG64", "state": {"state": 1, "inc": 1},
                               "has_uint32": 0, "uinteger": 0},
                     "torch": torch.get_rng_state(), "sample": torch.Generator().get_state()}}
    save_checkpoint(state, folder, update, learner="ppo")
    if finished:
        (folder / "eval.csv").write_text(",".join(runs.CSV_HEADER) + "\n"
                                         f"{update},{100 * update},2,1.0,1.0,1.0,random,2,0.5,0.1,"
                                         "0.9,0.0,final\n")
    return folder


def broken(content: bytes | None = None, **state_changes):
    """A run folder whose only checkpoint is ``content`` (bytes), or a valid one changed."""
    def make(root: Path) -> list[str]:
        run = fake_run(root / "runs" / "r__0__1")
        path = run / "checkpoints" / "update_0000001.pt"
        if content is not None:
            path.write_bytes(content)
        else:
            ckpt = torch.load(path, weights_only=True)
            for k, v in state_changes.items():
                if v is None:
                    ckpt.pop(k)
                else:
                    ckpt[k] = v
            torch.save(ckpt, path)
        return ["--resume", str(run)]
    return make


def truncated(root: Path) -> list[str]:
    run = fake_run(root / "runs" / "r__0__1")
    path = run / "checkpoints" / "update_0000001.pt"
    path.write_bytes(path.read_bytes()[:3000])
    return ["--resume", str(run)]


class Evil:
    def __reduce__(self):
        return (os.system, ("touch PWNED",))


def unsafe(root: Path) -> list[str]:
    run = fake_run(root / "runs" / "r__0__1")
    torch.save({"format": "shengji-rl/ppo", "x": Evil()}, run / "checkpoints" / "update_0000001.pt")
    return ["--resume", str(run)]


def resume_with(*extra: str, hidden: int = 8):
    def make(root: Path) -> list[str]:
        return ["--resume", str(fake_run(root / "runs" / "r__0__1", hidden=hidden)), *extra]
    return make


def checkpoint_file(root: Path) -> list[str]:
    return ["--resume", str(fake_run(root / "runs" / "r__0__1") / "checkpoints" / "update_0000001.pt")]


def no_checkpoint(root: Path) -> list[str]:
    (root / "runs" / "empty").mkdir(parents=True)
    return ["--resume", str(root / "runs" / "empty")]


C = ["--config", "tiny.yaml"]
RANDOM = np.random.default_rng(1).bytes(2000)  # seeded: the same bytes every run

CASES = [
    # the config file
    (["--config", "bad.yaml"], ["bad.yaml is not valid YAML", "line 2"]),
    (["--config", "tabs.yaml"], ["tabs.yaml is not valid YAML"]),
    (["--config", "binary.yaml"], ["binary.yaml is not a text YAML file", "0x80", "UTF-8"]),
    (["--config", "folder.yaml"], ["'folder.yaml' is a folder", "YAML file"]),
    (["--config", "missing.yaml"], ["'missing.yaml': no such file"]),
    (["--config", "list.yaml"], ["list.yaml must hold a mapping", "got list"]),
    ([], ["give --config"]),
    # --set syntax
    ([*C, "--set", "run.seed"], ["--set 'run.seed'", "KEY=VALUE"]),
    ([*C, "--set", "=3"], ["--set '=3'", "not a config key"]),
    ([*C, "--set", "run..seed=3"], ["'run..seed' is not a config key"]),
    ([*C, "--set", "run=3"], ["--set 'run=3'", "SECTION.KEY=VALUE"]),
    ([*C, "--set", "runs.seed=3"], ["unknown section 'runs'", "run, rules"]),
    ([*C, "--set", "run.seed=[1"], ["'seed'", "must be int", "'[1'"]),
    ([*C, "--set", "run.seed.x=3"], ["'seed'", "must be int", "{'x': 3}"]),
    ([*C, "--set", "learner.nope.gamma=1"], ["no learner stage named 'nope'", "ppo"]),
    # rules that validate but cannot be played yet
    ([*C, "--set", "rules.throw_decomposition=LEADER_DECLARED"],
     ["'LEADER_DECLARED'", "cannot be played yet"]),
    ([*C, "--set", "rules.decks=9"], ["decks=9", "1-4"]),
    # seeds
    ([*C, "--set", "run.seed=-1"], ["seed=-1", ">= 0"]),
    ([*C, "--set", "run.seed=99999999999999"], ["seed=99999999999999", "<= 2147483647"]),
    ([*C, "--set", "run.seed=1.5"], ["'seed'", "must be int", "1.5"]),
    ([*C, "--set", "eval.seed=-1"], ["seed=-1", ">= 0"]),
    ([*C, "--set", "eval.seed=99999999999999"], ["seed=99999999999999", "<= 2147483647"]),
    # run name and root
    ([*C, "--set", "run.name=../x"], ["run.name='../x'", "'/'", "one folder under run.run_root"]),
    ([*C, "--set", "run.name=a/b"], ["run.name='a/b'", "'/'"]),
    ([*C, "--set", "run.name=a\\b"], ["run.name='a\\\\b'", "'\\\\'"]),
    ([*C, "--set", "run.name=.."], ["run.name='..'", "outside run_root"]),
    ([*C, "--set", "run.name=' '"], ["run.name=' '", "empty"]),
    ([*C, "--set", "run.name="], ["'name'", "must be str", "None"]),
    ([*C, "--set", "run.run_root=a_file"], ["run.run_root='a_file' is a file", "folder"]),
    ([*C, "--set", "run.run_root=a_file/sub"], ["cannot create a run folder", "'a_file/sub'"]),
    # hyper-parameters
    ([*C, "--set", "learner.learning_rate=nan"], ["'learning_rate'", "finite", "nan"]),
    ([*C, "--set", "learner.target_kl=nan"], ["'target_kl'", "finite", "nan"]),
    ([*C, "--set", "learner.target_kl=-inf"], ["'target_kl'", "finite", "-inf"]),
    ([*C, "--set", "run.time_limit_minutes=inf"], ["'time_limit_minutes'", "finite", "inf"]),
    ([*C, "--set", "run.time_limit_minutes=-1"], ["time_limit_minutes=-1", ">= 0"]),
    ([*C, "--set", "eval.opponents.bogus=1"], ["eval.opponents", "unknown agent 'bogus'"]),
    # a learner's own agents: built before the run folder (they were a traceback after it)
    ([*C, "--set", "learner.sparring_prob=0.5", "--set", "learner.sparring=bogus"],
     ["learner.ppo", "sparring", "unknown agent 'bogus'"]),
    ([*C, "--set", "learner.declare_teacher=bogus"],
     ["learner.ppo", "declare_teacher", "unknown agent 'bogus'"]),
    (lambda w: _with_learner(w, "imitation", "learner.teacher=bogus"),
     ["learner.imitation", "teacher", "unknown agent 'bogus'"]),
    ([*C, "--set", "eval.opponents.random=1.5"], ["eval.opponents.random=1.5", ">= 0"]),
    ([*C, "--set", "eval.opponents.nothere.pt=1"], ["eval.opponents", "nothere"]),
    # --resume
    (["--resume", "nothere"], ["--resume 'nothere': no such run folder"]),
    (["--resume", "a_file"], ["--resume 'a_file' is a file", "run folder"]),
    (checkpoint_file, ["update_0000001.pt' is a file", "run folder of this checkpoint is"]),
    (no_checkpoint, ["no checkpoint (update_*.pt)", "empty"]),
    (resume_with("--config", "tiny.yaml"), ["--resume uses the run's saved config"]),
    (broken(b""), ["update_0000001.pt is not a readable torch checkpoint", "empty"]),
    (truncated, ["update_0000001.pt is not a readable torch checkpoint", "truncated"]),
    (broken(RANDOM), ["update_0000001.pt is not a readable", "not a file torch.save"]),
    (broken(b"run: {name: x}\n"), ["update_0000001.pt is not a readable"]),
    (unsafe, ["update_0000001.pt is not a readable", "not plain data", "nothing was run"]),
    (broken(format="other/ppo"), ["format 'other/ppo'", "'shengji-rl/<learner>'"]),
    (broken(version=7), ["checkpoint version 7", "versions 1 and 2"]),
    (broken(model=None), ["lacks model"]),
    (broken(optimizer=None, rng=None), ["lacks optimizer, rng", "not resumed"]),
    (broken(update="3"), ["update='3' (str)"]),
    (broken(rng={"numpy": 1}), ["rng lacks torch, sample"]),
    (broken(config={"run": {"num_envs": 0}}), ["num_envs=0", ">= 1"]),
    (resume_with("--set", "model.hidden=16"), ["network {'hidden': 8", "'hidden': 16",
                                              "cannot change on resume"]),
    (resume_with("--set", "rules.decks=1"), ["does not fit", "'decks': 1", "cannot change"]),
]


def _id(case) -> str:
    argv, words = case
    return words[0][:40] if callable(argv) else " ".join(argv)[:60]


@pytest.mark.parametrize("argv, words", CASES, ids=[_id(c) for c in CASES])
def test_bad_input_is_one_line_and_exit_2(where, capsys, argv, words):
    if callable(argv):
        argv = argv(where)
    runs = where / "runs"
    before = sorted(runs.rglob("*")) if runs.exists() else []
    assert train.main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("train.py: ") and "\n" not in err, err
    for w in words:
        assert w in err, f"{w!r} not in {err!r}"
    assert (sorted(runs.rglob("*")) if runs.exists() else []) == before, "a run folder was written"
    assert not (where / "PWNED").exists()


def test_resume_skips_a_corrupt_latest_checkpoint_and_says_so(where, capsys):
    run = fake_run(where / "runs" / "r__0__1", finished=True)
    (run / "checkpoints" / "update_0000002.pt").write_bytes(b"\0" * 100)  # a newer, broken one
    assert train.main(["--resume", str(run)]) == 0
    out = capsys.readouterr()
    assert "skipping a broken checkpoint" in out.err and "update_0000002.pt" in out.err
    assert "newest valid checkpoint, update_0000001.pt" in out.err
    assert "finished at update 1" in out.out  # a finished run appends nothing
    assert len((run / "eval.csv").read_text().splitlines()) == 2


def test_every_float_option_refuses_nan_and_infinities():
    sections = [train_config.RunSection, train_config.ModelSection, train_config.EvalSection,
                train_config.DeviceSection, *(cls.Options for cls in LEARNERS.values())]
    checked = 0
    for section in sections:
        hints = typing.get_type_hints(section)
        for f in dataclasses.fields(section):
            if hints[f.name] is not float:
                continue
            for bad in (float("nan"), float("inf"), float("-inf"), "nan", "-Infinity"):
                with pytest.raises(ConfigError, match=f"'{f.name}'.*finite"):
                    build(section, {f.name: bad}, "test")
            checked += 1
    assert checked >= 10  # learning rates, coefficients, target_kl, time limit, probabilities


def test_trim_drops_a_partial_last_row_and_rows_after_the_checkpoint(tmp_path):
    path = tmp_path / "eval.csv"
    full = "1,10,2,1.0,1.0,1.0,random,2,0.5000,0.1000,0.9000,0.0000,periodic"
    path.write_text(",".join(runs.CSV_HEADER) + f"\n{full}\n{full.replace('1,10', '2,20', 1)}\n"
                    "3,30,2,3.0,3.0,3.0,random,2,0.5")
    assert runs.trim_eval_csv(path, 3) == [full.split(","), full.replace("1,10", "2,20", 1).split(",")]
    assert runs.trim_eval_csv(path, 1) == [full.split(",")]
    assert path.read_text().splitlines() == [",".join(runs.CSV_HEADER), full]


def test_the_command_prints_no_traceback(tmp_path):
    """Two real ``python train.py`` runs over a sample of the cases above."""
    (tmp_path / "binary.yaml").write_bytes(bytes(range(256)))
    (tmp_path / "tiny.yaml").write_text(yaml.safe_dump(TINY))
    env = {**os.environ, "TQDM_DISABLE": "1"}
    for argv in (["--config", "binary.yaml"],
                 ["--config", "tiny.yaml", "--set", "rules.decks=3", "--set", "run.name=../x"]):
        out = subprocess.run([sys.executable, str(ROOT / "train.py"), *argv], cwd=tmp_path,
                             env=env, capture_output=True, text=True, timeout=120, check=False)
        assert out.returncode == 2 and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.startswith("train.py: ") and out.stderr.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["binary.yaml", "tiny.yaml"]

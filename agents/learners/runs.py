"""The run folder of ``train.py``: its name, the evaluation log (``eval.csv`` and TensorBoard),
the final table, and the plain-python view of a config for TensorBoard's hyperparameter text."""

from __future__ import annotations

import csv
import os
import time
from pathlib import Path

import numpy as np

from ..config import ConfigError

__all__ = ["CSV_HEADER", "check_runnable", "csv_row_ok", "evaluate_against", "finished",
           "fit_bar_to_time_limit", "flatten", "format_table", "init_weights", "log_workers",
           "new_run_dir", "trim_eval_csv"]

CSV_HEADER = ["update", "global_step", "hands", "elapsed_s", "cpu_s", "train_s", "opponent",
            "eval_hands", "win_rate", "ci_low", "ci_high", "mean_reward", "kind"]


def evaluate_against(policy, opponents: dict, deals: dict, rules, seed: int) -> dict:
    """Play ``policy`` against each opponent on its fixed duplicate deals → summaries by name
    (``eval.stats.summarize``: ``hands``, ``win_rate``, ``win_rate_ci``, ``mean_reward``, …).

    Find-friends rules have no fixed teams, so "the policy's team won" means nothing there: the
    summary is the find-friends metric instead (``eval.arena.friend_win_share``, the policy in one
    seat and the opponent in three, each deal played four times with the seats rotated):
    ``hands`` counts the policy's seat-hands, ``win_rate`` is the share of them on the winning
    side and ``mean_reward`` the policy's mean per-seat reward."""
    from ..eval import play_deals, summarize
    from ..eval.arena import friend_win_share
    from ..eval.stats import mean_ci

    if rules.partnership == "FIND_FRIEND":
        out = {}
        for name, d in deals.items():
            share = friend_win_share((policy, opponents[name]), d, rules, seed=seed)
            reward = mean_ci(share.a_rewards)
            out[name] = {"hands": share.a_seat_hands, "deals": len(d),
                         "wins": round(share.a_share * share.a_seat_hands),
                         "win_rate": share.a_share, "win_rate_ci": list(share.a_ci),
                         "mean_reward": reward[0], "mean_reward_ci": [reward[1], reward[2]]}
        return out
    return {name: summarize(play_deals((policy, opponents[name]), d, rules, seed=seed))
            for name, d in deals.items()}


def init_weights(cfg, rules) -> dict:
    """The network weights ``model.init`` names (a checkpoint file or run folder), checked to fit
    the config's model and rules; ``ConfigError`` says what does not."""
    from agents.checkpoint import load_checkpoint, net_from_checkpoint

    where = f"model.init={cfg.model.init!r}"
    try:
        ckpt = load_checkpoint(cfg.model.init)
        net = net_from_checkpoint(ckpt, rules)
    except (ValueError, FileNotFoundError, OSError, KeyError) as e:
        raise ConfigError(f"{where}: {e}") from None
    want = {"hidden": cfg.model.hidden, "blocks": cfg.model.blocks,
            "card_head": cfg.model.card_head}
    if net.spec() != want:
        raise ConfigError(f"{where}: its network is {net.spec()}, the config's model is {want}; "
                          "set the model section to the checkpoint's shape (e.g. --set "
                          f"model.hidden={net.spec()['hidden']})")
    return net.state_dict()


def log_workers(writer, perf: dict, global_step: int) -> None:
    writer.add_scalar("perf/policy_lag", perf["policy_lag"], global_step)
    writer.add_scalar("perf/dropped_batches", perf["dropped_batches"], global_step)
    writer.add_scalar("perf/worker_wait_s", perf["wait_s"], global_step)
    writer.add_scalar("perf/replaced_workers", perf["replaced_workers"], global_step)
    for i, rate in perf["hands_per_s"].items():
        writer.add_scalar(f"perf/hands_per_s/worker_{i}", rate, global_step)


def flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flatten(v, f"{prefix}{k}."))
        elif isinstance(v, list):
            for i, item in enumerate(v):
                out.update(flatten(item, f"{prefix}{k}.{i}.") if isinstance(item, dict)
                           else {f"{prefix}{k}.{i}": item})
        else:
            out[prefix + k] = v
    return out


def format_table(results: dict, cfg, run_dir: Path) -> str:
    """The final evaluation as a small text table."""
    find_friends = cfg.rules.get("partnership") == "FIND_FRIEND"  # as Rules(**cfg.rules) reads it
    lines = [(f"\nfinal evaluation of {run_dir} ({'sampled' if cfg.eval.sample else 'greedy'} "
              f"policy), {cfg.eval.final_deals} duplicate deals per opponent "
              + ("(seats rotated; find-friends: hands are the policy's seat-hands, the win rate "
                 "their share on the winning side)" if find_friends
                 else "(teams swapped)")),
             f"{'opponent':<11}{'hands':>6}  {'win rate':>8}  {'95% CI':<17}{'mean reward':>12}"]
    for name, s in results.items():
        lo, hi = s["win_rate_ci"]
        lines.append(f"{name:<11}{s['hands']:>6}  {100 * s['win_rate']:7.1f}%  "
                     f"[{100 * lo:5.1f}%, {100 * hi:5.1f}%]  {s['mean_reward']:+11.3f}")
    return "\n".join(lines)


def fit_bar_to_time_limit(bar, run, update: int, elapsed_s: float) -> None:
    """With ``run.time_limit_minutes``, the bar's total is the updates expected to fit in the
    limit at the mean pace so far (never more than ``run.total_updates``), so it ends full."""
    if run.time_limit_minutes <= 0 or update <= 0:
        return
    per_update = elapsed_s / update  # both count across resumes
    left = max(60 * run.time_limit_minutes - elapsed_s, 0.0)
    expected = min(run.total_updates, update + int(left / max(per_update, 1e-9)))
    if expected != bar.total:
        bar.total = expected
        bar.refresh()


def csv_row_ok(row: list[str]) -> bool:
    """A complete ``eval.csv`` row (a kill may leave the last one cut short)."""
    if len(row) != len(CSV_HEADER) or row[-1] not in ("periodic", "final"):
        return False
    try:
        int(row[0]), int(row[1]), float(row[3]), float(row[4])
    except ValueError:
        return False
    return True


def trim_eval_csv(path: Path, update: int) -> list[list[str]]:
    """Drop evaluation rows a killed run wrote after the checkpoint being resumed, and a partial
    last row; rewrite the file atomically. Returns the rows kept (without the header)."""
    if not path.exists():
        return []
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    keep = [r for r in rows[1:] if csv_row_ok(r) and int(r[0]) <= update]
    tmp = path.with_suffix(".csv.tmp")
    with open(tmp, "w", newline="") as f:
        csv.writer(f).writerows([CSV_HEADER, *keep])
    os.replace(tmp, path)
    return keep


def finished(run_dir: Path, resume: dict, cfg) -> bool:
    """The run reached ``run.total_updates`` and wrote its final evaluation."""
    path = run_dir / "eval.csv"
    if resume["update"] < cfg.run.total_updates or not path.exists():
        return False
    with open(path, newline="") as f:
        return any(csv_row_ok(r) and r[-1] == "final" and int(r[0]) == resume["update"]
                   for r in csv.reader(f))


def new_run_dir(cfg) -> Path:
    root, stamp = Path(cfg.run.run_root), int(time.time())
    if root.exists() and not root.is_dir():
        raise ConfigError(f"run.run_root={cfg.run.run_root!r} is a file; expected a folder (it "
                          "is created if missing)")
    while True:
        run_dir = root / f"{cfg.run.name}__{cfg.run.seed}__{stamp}"
        try:
            run_dir.mkdir(parents=True)
            return run_dir
        except FileExistsError:
            stamp += 1


def check_runnable(cfg, resume: dict | None) -> None:
    """Everything ``train`` builds that can fail on bad input, checked before a run folder is
    created or a config rewritten: the evaluation opponents, and on resume that the saved
    network, optimizer and random states fit the (possibly ``--set``-changed) config."""
    from agents.specs import resolve
    from shengji_env import Rules
    from shengji_env.core.engine import check_num_games

    rules = Rules(**cfg.rules)
    try:  # the env batch: a size the machine cannot hold is refused here, not at reset
        check_num_games(cfg.run.num_envs)
    except ValueError as e:
        raise ConfigError(f"run.num_envs: {e}") from None
    for spec in cfg.eval.opponents:
        try:
            resolve(spec, rules)
        except (ValueError, TypeError, OSError) as e:
            rest = ", ".join(f"{k}: {n}" for k, n in cfg.eval.opponents.items() if k != spec)
            raise ConfigError(f"eval.opponents: {e} (to leave it out: --set "
                              f"'eval.opponents={{{rest}}}')") from None
    from agents.learners import learner_class

    for stage in cfg.learner:  # a learner's own agents (a search, an opponent) for these rules
        check = getattr(learner_class(stage.name), "check_runnable", None)
        if check is not None:
            try:
                check(stage.options, rules)
            except (ValueError, TypeError, OSError) as e:
                raise ConfigError(f"learner.{stage.name}: {e}") from None
    if resume is None:
        if cfg.model.init:
            init_weights(cfg, rules)
        return
    import torch

    from agents.learners.nets import PolicyValueNet

    spec = {"hidden": cfg.model.hidden, "blocks": cfg.model.blocks,
            "card_head": cfg.model.card_head}
    net = PolicyValueNet(rules, **spec)
    optimizer = torch.optim.Adam(net.parameters(), eps=1e-5)
    for stage in cfg.learner:  # what the learners add (a head, say), as train() builds it
        learner_class(stage.name).prepare(stage.options, net, optimizer)
    try:
        net.load_state_dict(resume["model"])
        optimizer.load_state_dict(resume["optimizer"])
    except (RuntimeError, ValueError, KeyError, TypeError) as e:
        first = next((ln.strip() for ln in str(e).splitlines()[1:] if ln.strip()), str(e))
        raise ConfigError(f"--resume: the checkpoint's network {resume['net']} (rules "
                          f"{resume['rules'] if cfg.rules != resume['rules'] else 'unchanged'}) does "
                          f"not fit model {spec}, rules {cfg.rules}: {first[:200]}; the network's "
                          "shape cannot change on resume") from None
    try:
        np.random.default_rng().bit_generator.state = resume["rng"]["numpy"]
        torch.Generator().set_state(resume["rng"]["sample"])
        saved = torch.get_rng_state()
        torch.set_rng_state(resume["rng"]["torch"])
        torch.set_rng_state(saved)
    except (RuntimeError, ValueError, KeyError, TypeError) as e:
        raise ConfigError(f"--resume: the checkpoint's random states cannot be restored ({e})") \
            from None

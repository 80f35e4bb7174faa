"""Train a Shengji bot on the CPU with a learner (or a schedule of learners), and evaluate it.

    python train.py --config configs/quickstart.yaml                  # a few minutes
    python train.py --config configs/ppo_selfplay.yaml --set run.seed=1 --set run.num_envs=128
    python train.py --config configs/quickstart.yaml --set rules.kitty_multiplier=POWER
    python train.py --resume runs/quickstart__0__1760000000           # continue after a kill
    python train.py --help                                            # every config key

Reads top to bottom (CleanRL's ``ppo.py``): config (``agents.learners.config``) → seeding →
env, network, optimizer, the learners of the schedule → for each update: the current stage's
learner collects hands and updates the network (``agents.learners.base.Learner``), TensorBoard
scalars, periodic evaluation on fixed duplicate deals against the configured opponents (agent
specs), atomic checkpoints (``agents.checkpoint``) → a final evaluation table.

The run folder ``<run_root>/<name>__<seed>__<unix time>/`` holds ``config.yaml`` (the resolved
config), the TensorBoard events, ``eval.csv`` (every evaluation, with wall time) and
``checkpoints/update_*.pt``. ``--resume`` continues from the newest checkpoint with the saved
config (``--set`` may change keys, e.g. ``run.total_updates``); the next update is bit-identical
to the one the uninterrupted run would have made. A corrupt newest checkpoint is skipped (with a
note) for the newest valid one; TensorBoard and ``eval.csv`` drop what a killed run wrote after
it, so every update is logged exactly once; a finished run resumed again does nothing.

Bad input (a config, ``--set``, a run name, a checkpoint) is one line on stderr and exit 2,
found before a run folder is created or a config rewritten (``tests/test_bad_input_train.py``).
"""

import argparse
import csv
import sys
import time
from pathlib import Path

import numpy as np
import yaml

from agents.config import ConfigError
from agents.learners import config as train_config
from agents.learners import runs


def train(cfg, run_dir: Path, resume: dict | None = None) -> dict:
    """Run the training loop in ``run_dir``; returns the final evaluation summaries."""
    import torch
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    from agents import TorchPolicy
    from agents.checkpoint import rules_to_dict, save_checkpoint
    from agents.eval import Deals
    from agents.learners import learner_class
    from agents.learners.base import TrainContext
    from agents.learners.distributed import WorkerPool, check_supported
    from agents.learners.nets import PolicyValueNet
    from agents.specs import resolve
    from shengji_env import Rules
    from shengji_env.vector import VecEnv

    run, dev = cfg.run, cfg.device
    # --- seeding: the only place randomness is created
    torch.set_num_threads(dev.torch_threads)
    torch.manual_seed(run.seed)  # network initialisation
    np_rng = np.random.default_rng(run.seed)  # pool draws, minibatch order
    gen = torch.Generator().manual_seed(run.seed)  # action sampling

    rules = Rules(**cfg.rules)
    venv = VecEnv(run.num_envs, rules, seed=0, reward=run.reward)  # reseeded every update
    net_spec = {"hidden": cfg.model.hidden, "blocks": cfg.model.blocks,
                "card_head": cfg.model.card_head}

    def make_net():
        return PolicyValueNet(rules, **net_spec)

    net = make_net()  # on the CPU: rollouts
    if resume is None and cfg.model.init:  # a warm start from another run's network
        net.load_state_dict(runs.init_weights(cfg, rules))
    device = train_config.torch_device(dev)
    learn_net = net if device == "cpu" else make_net().to(device)  # updates (same weights)
    if learn_net is not net:
        learn_net.load_state_dict(net.state_dict())
    optimizer = torch.optim.Adam(learn_net.parameters(), lr=cfg.learner[-1].options.learning_rate,
                                 eps=1e-5)
    learners, start = [], 1
    for stage in cfg.learner:  # built in schedule order (a learner may draw network inits)
        ctx = TrainContext(rules, venv, net, make_net, optimizer, np_rng, gen, run.seed,
                           run.hands_per_env, run.total_updates, start, stage.updates,
                           learn_net, device)
        learners.append(learner_class(stage.name)(stage.options, ctx))
        start += stage.updates
    update = global_step = hands = 0
    train_s = elapsed_before = cpu_before = 0.0
    if resume is not None:
        net.load_state_dict(resume["model"])
        learn_net.load_state_dict(resume["model"])
        optimizer.load_state_dict(resume["optimizer"])
        for stage, learner in zip(cfg.learner, learners):
            if stage.name in resume.get("learners", {}):
                learner.load_state_dict(resume["learners"][stage.name])
        np_rng.bit_generator.state = resume["rng"]["numpy"]
        torch.set_rng_state(resume["rng"]["torch"])
        gen.set_state(resume["rng"]["sample"])
        update, global_step, hands = resume["update"], resume["global_step"], resume["hands"]
        train_s, elapsed_before, cpu_before = resume["train_s"], resume["elapsed_s"], resume["cpu_s"]
    wall0, cpu0 = time.perf_counter(), time.process_time()

    def clock() -> tuple[float, float]:
        """(wall, cpu) seconds of this run so far, across resumes."""
        return (elapsed_before + time.perf_counter() - wall0,
                cpu_before + time.process_time() - cpu0)

    # The scalars of update ``update`` were logged at ``global_step`` and are kept; what a killed
    # run logged after its checkpoint (steps > global_step) is purged (TensorBoard hides events at
    # steps >= purge_step written before this session; purge_step=global_step lost update
    # ``update``'s scalars, which nothing rewrites).
    writer = SummaryWriter(str(run_dir), purge_step=global_step + 1 if resume else None)
    if resume is None:
        flat = runs.flatten(cfg.as_dict())
        rows = "\n".join(f"|{k}|{v}|" for k, v in flat.items())
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{rows}")
    eval_csv = run_dir / "eval.csv"
    kept = runs.trim_eval_csv(eval_csv, update)
    if kept:  # a final evaluation after the checkpoint took wall time too: keep elapsed_s monotonic
        elapsed_before = max(elapsed_before, max(float(r[3]) for r in kept))
        cpu_before = max(cpu_before, max(float(r[4]) for r in kept))
    ev = cfg.eval
    opponents = {spec: resolve(spec, rules) for spec in ev.opponents}
    deals = {spec: Deals.generate(n, rules, ev.seed + i)
             for i, (spec, n) in enumerate(ev.opponents.items()) if n > 0}
    policy = TorchPolicy(net, sample=ev.sample, name=cfg.learner[-1].name)

    def log_eval(results: dict, kind: str = "periodic"):
        """TensorBoard ``eval/…`` (periodic, fixed deals) or ``eval_final/…`` (the final table,
        larger fresh deals: its own tag, so it is not read as one more point of the curve)."""
        tag = "eval" if kind == "periodic" else "eval_final"
        elapsed, cpu = clock()
        new = not eval_csv.exists()
        with open(eval_csv, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(runs.CSV_HEADER)
            for name, s in results.items():
                lo, hi = s["win_rate_ci"]
                writer.add_scalar(f"{tag}/win_rate_vs_{name}", s["win_rate"], global_step)
                writer.add_scalar(f"{tag}/win_rate_vs_{name}_ci_low", lo, global_step)
                writer.add_scalar(f"{tag}/win_rate_vs_{name}_ci_high", hi, global_step)
                writer.add_scalar(f"{tag}/mean_reward_vs_{name}", s["mean_reward"], global_step)
                w.writerow([update, global_step, hands, f"{elapsed:.1f}", f"{cpu:.1f}",
                            f"{train_s:.1f}", name, s["hands"], f"{s['win_rate']:.4f}",
                            f"{lo:.4f}", f"{hi:.4f}", f"{s['mean_reward']:.4f}", kind])

    def checkpoint(learner_name: str):
        writer.flush()  # every scalar up to this update is on disk before the checkpoint says so
        wall, cpu = clock()
        save_checkpoint({
            "model": net.state_dict(),  # the CPU copy (same weights as learn_net)
            "optimizer": optimizer.state_dict(), "net": net.spec(),
            "rules": rules_to_dict(rules), "config": cfg.as_dict(),
            "learners": {s.name: lr.state_dict() for s, lr in zip(cfg.learner, learners)},
            "update": update, "global_step": global_step, "hands": hands, "elapsed_s": wall,
            "cpu_s": cpu, "train_s": train_s,
            "rng": {"numpy": np_rng.bit_generator.state, "torch": torch.get_rng_state(),
                    "sample": gen.get_state()},
        }, run_dir, update, learner=learner_name, keep=run.keep_checkpoints)

    check_supported(cfg, update + 1)
    workers = None  # a WorkerPool while a stage collects in distributed workers
    bar = tqdm(total=run.total_updates, initial=update, desc=run.name, unit="update",
               dynamic_ncols=True)
    last_eval: dict = {}
    while update < run.total_updates:
        update += 1
        start = time.perf_counter()
        stage, _ = cfg.stage_at(update)
        learner = learners[stage]
        lr = learner.learning_rate(update)
        for group in optimizer.param_groups:
            group["lr"] = lr
        torch.set_num_threads(dev.collect_threads)
        if cfg.distributed.workers:
            if workers is None or workers.stage != stage:
                workers = WorkerPool(cfg, stage)
            workers.publish(update - 1, net.state_dict(), learner.state_dict())
            results, perf = workers.collect()
            batch, stats = learner.merge([(r["batch"], r["stats"]) for r in results])
            runs.log_workers(writer, perf, global_step)
            if cfg.distributed.kill_worker_at_update == update:
                workers.kill(0)
        else:
            batch, stats = learner.collect(update)
        collected = time.perf_counter()
        torch.set_num_threads(dev.torch_threads)
        losses = learner.update(batch, update)
        if learn_net is not net:  # the rollouts' CPU copy follows the learning device
            net.load_state_dict(learn_net.state_dict())
        done_at = time.perf_counter()
        global_step += stats["decisions"]
        hands += stats["hands"]
        took = done_at - start
        train_s += took

        writer.add_scalar("charts/learning_rate", lr, global_step)
        writer.add_scalar("charts/hands", hands, global_step)
        learner.log(writer, stats, losses, global_step)
        writer.add_scalar("perf/SPS", stats["decisions"] / took, global_step)
        writer.add_scalar("perf/collect_s", collected - start, global_step)
        writer.add_scalar("perf/update_s", done_at - collected, global_step)
        writer.add_scalar("perf/decisions_per_update", len(batch), global_step)
        for each in learners:  # e.g. the PPO pool snapshots the shared net during a warm start
            each.after_update(update)

        out_of_time = run.time_limit_minutes > 0 and clock()[0] >= 60 * run.time_limit_minutes
        last = update == run.total_updates or out_of_time
        if (ev.every and update % ev.every == 0) and not last:
            t = time.perf_counter()
            last_eval = runs.evaluate_against(policy, opponents, deals, rules, ev.seed)
            writer.add_scalar("perf/eval_s", time.perf_counter() - t, global_step)
            log_eval(last_eval)
        if update % run.checkpoint_every == 0 or last:
            checkpoint(learner.name)
        bar.update(1)
        runs.fit_bar_to_time_limit(bar, run, update, clock()[0])
        post = {"SPS": f"{stats['decisions'] / took:.0f}", **learner.progress(stats, losses)}
        post.update({f"vs_{k}": f"{v['win_rate']:.2f}" for k, v in last_eval.items()})
        bar.set_postfix(post)
        if out_of_time:
            break
    bar.close()
    if workers is not None:
        workers.close()

    # --- final evaluation on a larger fixed deal set, against every opponent
    final_deals = {spec: Deals.generate(ev.final_deals, rules, ev.seed + 2 + i)
                   for i, spec in enumerate(opponents)}
    results = runs.evaluate_against(policy, opponents, final_deals, rules, ev.seed)
    log_eval(results, "final")
    writer.close()
    return results


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="train.py", epilog=train_config.help_text(),
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="Train a Shengji bot; see the module docstring.")
    p.add_argument("--config", help="YAML config file (configs/*.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE",
                   help="override a config key (repeatable), e.g. run.num_envs=64, "
                        "learner.ppo.learning_rate=1e-4, rules.decks=1")
    p.add_argument("--resume", metavar="RUN_DIR",
                   help="continue the run in RUN_DIR from its newest checkpoint")
    return p


def load_resume(run_dir: Path) -> tuple[Path, dict]:
    """The newest checkpoint of ``run_dir`` that loads and can be resumed; a corrupt newer one is
    skipped with a note on stderr. ``ValueError`` / ``FileNotFoundError`` say what is wrong."""
    from agents.checkpoint import check_resumable, checkpoints, latest_checkpoint, load_checkpoint

    if not run_dir.exists():
        raise FileNotFoundError(f"--resume {str(run_dir)!r}: no such run folder")
    if not run_dir.is_dir():
        hint = (f" (the run folder of this checkpoint is {run_dir.parent.parent})"
                if run_dir.parent.name == "checkpoints" else "")
        raise ValueError(f"--resume {str(run_dir)!r} is a file; it takes a run folder "
                         f"(<run_root>/<name>__<seed>__<time>){hint}")
    latest_checkpoint(run_dir)  # FileNotFoundError when there is none
    skipped = []
    for path in reversed(checkpoints(run_dir)):
        try:
            ckpt = load_checkpoint(path)
            check_resumable(ckpt, path)
        except ValueError as e:
            skipped.append(str(e))
            continue
        for why in skipped:
            print(f"train.py: note: skipping a broken checkpoint: {why}", file=sys.stderr)
        if skipped:
            print(f"train.py: note: resuming from the newest valid checkpoint, {path.name}",
                  file=sys.stderr)
        return path, ckpt
    raise ValueError(f"no checkpoint in {run_dir / 'checkpoints'} can be resumed: "
                     + "; ".join(skipped))


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:  # every check before anything is written: no orphan run folders
        for flag, value in (("--config", args.config), ("--resume", args.resume)):
            if value is not None and not value.strip():  # '' read as "not given"
                raise ConfigError(f"{flag} {value!r}: expected a path")
        if args.resume:
            if args.config:
                raise ConfigError("--resume uses the run's saved config; change keys with --set, "
                                  "not --config")
            run_dir = Path(args.resume)
            path, resume = load_resume(run_dir)
            cfg = train_config.resolve(resume["config"], args.set, where=f"{path}: config")
        elif args.config:
            resume = None
            cfg = train_config.load(args.config, args.set)
        else:
            raise ConfigError("give --config configs/<name>.yaml (or --resume RUN_DIR)")
        train_config.torch_device(cfg.device)  # cuda without a GPU: refused before anything
        if cfg.distributed.workers:
            from agents.learners.distributed import check_supported, require_ray

            require_ray()
            check_supported(cfg, (resume or {}).get("update", 0) + 1)
        runs.check_runnable(cfg, resume)
        if resume is not None and runs.finished(run_dir, resume, cfg):
            print(f"{run_dir} finished at update {resume['update']} (run.total_updates="
                  f"{cfg.run.total_updates}) and has its final evaluation; nothing to do (raise "
                  "run.total_updates with --set to continue)", flush=True)
            return 0
        if resume is None:
            try:
                run_dir = runs.new_run_dir(cfg)
            except OSError as e:
                raise ConfigError(f"cannot create a run folder under run.run_root="
                                  f"{cfg.run.run_root!r}: {e.strerror or e}") from None
    except (ConfigError, FileNotFoundError, ValueError, NotImplementedError) as e:
        print(f"train.py: {' '.join(str(e).split())}", file=sys.stderr)
        return 2
    with open(run_dir / "config.yaml", "w") as f:
        yaml.safe_dump(cfg.as_dict(), f, sort_keys=False)
    print(f"run folder: {run_dir}", flush=True)
    if resume is not None:
        print(f"resuming at update {resume['update']} of {cfg.run.total_updates} from "
              f"{path.name} (global step {resume['global_step']})", flush=True)
    results = train(cfg, run_dir, resume)
    print(runs.format_table(results, cfg, run_dir), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

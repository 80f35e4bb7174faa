"""Train a Shengji bot by PPO self-play on the CPU, and evaluate it against the baselines.

    python train.py --config configs/quickstart.yaml                 # a few minutes
    python train.py --config configs/ppo_selfplay.yaml --set seed=1 --set num_envs=128
    python train.py --config configs/quickstart.yaml --set rules.kitty_multiplier=POWER
    python train.py --resume runs/quickstart__0__1760000000          # continue after a kill

Reads top to bottom (CleanRL's ``ppo.py``): config → seeding → env, network, optimizer, pool →
for each update: play whole hands (``agents.ppo.collect_hands``), PPO epochs, TensorBoard
scalars, the opponent pool, periodic evaluation on fixed duplicate deals (``agents.arena``),
atomic checkpoints (``agents.checkpoint``) → a final evaluation table. With
``imitation_updates`` > 0 the first updates instead label hands with HeuristicAgent's play and
fit the network to it (``agents.imitation``: behaviour cloning with DAgger), a warm start that
PPO then improves on.

The run folder ``<run_root>/<name>__<seed>__<unix time>/`` holds ``config.yaml`` (the resolved
config), the TensorBoard events, ``eval.csv`` (every evaluation, with wall time) and
``checkpoints/update_*.pt``. ``--resume`` continues from the newest checkpoint with the saved
config (``--set`` may change fields, e.g. ``total_updates``); the next update is bit-identical
to the one the uninterrupted run would have made.
"""

import argparse
import ast
import csv
import dataclasses
import sys
import time
import typing
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml


@dataclass
class Config:
    """Every training option. YAML files and ``--set`` may name only these fields."""

    name: str = "ppo"
    """experiment name; the run folder is <run_root>/<name>__<seed>__<unix time>"""
    seed: int = 0
    """seed of everything: the games, network init, action sampling and minibatch order"""
    run_root: str = "runs"
    """folder under which run folders are created"""
    torch_threads: int = 1
    """torch threads for the PPO epochs (2 helps on an idle 2-core machine, hurts when busy)"""
    collect_threads: int = 1
    """torch threads while playing hands (small batches: more threads only add overhead)"""
    rules: dict = field(default_factory=dict)
    """Rules options (RULES.md §11), e.g. {decks: 1}; empty = the default ruleset"""
    reward: str = "levels"
    """training reward: levels, points or win (DESIGN.md §4); evaluation always counts hands won"""
    num_envs: int = 128
    """games played in lockstep (VecEnv batch)"""
    hands_per_env: int = 1
    """hands each game plays per update; decisions per update ≈ 145·num_envs·hands_per_env"""
    total_updates: int = 100
    """number of PPO updates to run"""
    time_limit_minutes: float = 0.0
    """stop (with a checkpoint and the final evaluation) after this much wall time; 0 = none"""
    hidden: int = 256
    """width of the network's trunk"""
    blocks: int = 1
    """residual MLP blocks after the input layer"""
    card_head: int = 0
    """width of the per-card head that judges each card from its own facts (agents.nets); 0 = off"""
    learning_rate: float = 3.0e-4
    """Adam step size"""
    anneal_lr: bool = False
    """decay the learning rate linearly to 0 over total_updates"""
    gamma: float = 1.0
    """discount per decision of the same seat (rewards come only at the hand's end)"""
    gae_lambda: float = 0.95
    """GAE λ along each seat's own decisions"""
    shaping: float = 0.0
    """potential-based reward shaping: weight of the attackers' points (fraction of all points,
    signed for the seat's team) credited as they are won; 0 = off; the return is unchanged"""
    update_epochs: int = 4
    """passes over each update's decisions"""
    minibatch_size: int = 4096
    """decisions per gradient step (the batch is split into near-equal minibatches)"""
    clip_coef: float = 0.2
    """PPO ratio clipping"""
    clip_vloss: bool = False
    """clip the value loss like the policy ratio"""
    ent_coef: float = 0.01
    """entropy bonus coefficient"""
    vf_coef: float = 0.5
    """value loss coefficient"""
    max_grad_norm: float = 0.5
    """gradient norm clipping"""
    norm_adv: bool = True
    """normalise advantages per minibatch"""
    target_kl: float = 0.0
    """stop an update's epochs early when approx KL exceeds this; 0 = never"""
    pool_prob: float = 0.2
    """probability that a hand is played against a past snapshot (one team) instead of self"""
    pool_size: int = 8
    """snapshots kept in the opponent pool (newest)"""
    pool_every: int = 10
    """updates between snapshots added to the pool"""
    imitation_updates: int = 0
    """first updates that learn HeuristicAgent's play (behaviour cloning with DAgger,
    agents.imitation) instead of PPO: a warm start; 0 = learn from scratch"""
    imitation_learning_rate: float = 1.0e-3
    """Adam step size during imitation"""
    imitation_epochs: int = 2
    """passes over each imitation update's fresh demonstrations"""
    imitation_minibatch_size: int = 1024
    """decisions per gradient step during imitation"""
    imitation_student_prob: float = 0.5
    """during imitation, share of hands in which the network runs one team (its states are
    labelled by the teacher too); ramps up linearly from 0 over the imitation updates"""
    sparring_prob: float = 0.0
    """probability that a hand is played against HeuristicAgent (one team; not trained on);
    0 = pure self-play + pool. A sparring partner, not a teacher: nothing is imitated"""
    eval_every: int = 10
    """updates between evaluations against the baselines; 0 = only at the end"""
    eval_deals_random: int = 50
    """duplicate deals (2 hands each) against RandomAgent per evaluation"""
    eval_deals_heuristic: int = 20
    """duplicate deals (2 hands each) against HeuristicAgent per evaluation; 0 = skip"""
    final_eval_deals: int = 100
    """duplicate deals per baseline in the final evaluation table"""
    eval_seed: int = 12345
    """seed of the fixed evaluation deals and the baselines' randomness"""
    eval_sample: bool = False
    """evaluate the sampled policy instead of the greedy (argmax) one"""
    checkpoint_every: int = 10
    """updates between checkpoints (one is always written at the end)"""
    keep_checkpoints: int = 3
    """newest checkpoints kept in the run folder"""

    def __post_init__(self):
        positive = ("num_envs", "hands_per_env", "total_updates", "hidden", "update_epochs",
                    "minibatch_size", "pool_every", "torch_threads", "collect_threads",
                    "final_eval_deals", "keep_checkpoints", "checkpoint_every", "imitation_epochs",
                    "imitation_minibatch_size")
        for name in positive:
            if getattr(self, name) < 1:
                raise ConfigError(f"{name}={getattr(self, name)!r}: expected an int >= 1")
        for name in ("blocks", "card_head", "pool_size", "eval_every", "eval_deals_random",
                     "eval_deals_heuristic", "imitation_updates"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name}={getattr(self, name)!r}: expected an int >= 0")
        for name in ("pool_prob", "gae_lambda", "sparring_prob", "imitation_student_prob"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise ConfigError(f"{name}={getattr(self, name)!r}: expected a number in [0, 1]")
        if not 0.0 < self.gamma <= 1.0:
            raise ConfigError(f"gamma={self.gamma!r}: expected a number in (0, 1]")
        for name in ("learning_rate", "clip_coef", "max_grad_norm", "imitation_learning_rate"):
            if not getattr(self, name) > 0:
                raise ConfigError(f"{name}={getattr(self, name)!r}: expected a number > 0")
        for name in ("ent_coef", "vf_coef", "target_kl", "time_limit_minutes", "shaping"):
            if getattr(self, name) < 0:
                raise ConfigError(f"{name}={getattr(self, name)!r}: expected a number >= 0")
        if self.pool_prob + self.sparring_prob > 1:
            raise ConfigError(f"pool_prob + sparring_prob = {self.pool_prob + self.sparring_prob}"
                              ": the two kinds of opponent hands cannot exceed all hands (1)")
        if self.reward not in ("levels", "points", "win"):
            raise ConfigError(f"reward={self.reward!r}: expected one of levels, points, win")
        from shengji_env import Rules

        try:
            Rules(**self.rules)
        except (ValueError, TypeError) as e:
            raise ConfigError(f"rules: {e}") from None


class ConfigError(ValueError):
    """A config file, ``--set`` or field value that is not allowed."""


TYPES = typing.get_type_hints(Config)
FIELDS = tuple(TYPES)


def field_docs() -> dict[str, str]:
    """Field name → its docstring (the string literal under each field of ``Config``)."""
    tree = ast.parse(Path(__file__).read_text())
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Config")
    docs, last = {}, None
    for node in cls.body:
        if isinstance(node, ast.AnnAssign):
            last = node.target.id
        elif (last and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
              and isinstance(node.value.value, str)):
            docs[last], last = node.value.value, None
    return docs


def check_value(key: str, value, where: str):
    """``value`` converted to the type of field ``key``, or ``ConfigError`` naming both."""
    if key not in TYPES:
        raise ConfigError(f"unknown config key {key!r} ({where}); allowed keys: "
                          f"{', '.join(FIELDS)}")
    want = TYPES[key]
    ok = {int: isinstance(value, int) and not isinstance(value, bool),
          float: isinstance(value, (int, float)) and not isinstance(value, bool),
          bool: isinstance(value, bool), str: isinstance(value, str),
          dict: isinstance(value, dict)}[want]
    if not ok and want is float and isinstance(value, str):  # YAML reads 3e-4 as a string
        try:
            return float(value)
        except ValueError:
            pass
    if not ok:
        raise ConfigError(f"config key {key!r} ({where}) must be {want.__name__}, got "
                          f"{value!r} ({type(value).__name__})")
    return float(value) if want is float else value


def parse_set(text: str) -> tuple[str, object]:
    """``KEY=VALUE`` (``rules.OPTION=VALUE`` for a rules option) → (key, typed value)."""
    if "=" not in text:
        raise ConfigError(f"--set {text!r}: expected KEY=VALUE, e.g. num_envs=64")
    key, _, raw = (t.strip() for t in text.partition("="))
    if key.startswith("rules."):
        return key, yaml.safe_load(raw)
    if key not in TYPES:
        raise ConfigError(f"unknown config key {key!r} (--set); allowed keys: {', '.join(FIELDS)}")
    want = TYPES[key]
    try:
        if want is bool:
            low = raw.lower()
            if low not in ("true", "false", "1", "0", "yes", "no"):
                raise ValueError
            value = low in ("true", "1", "yes")
        elif want is dict:
            value = yaml.safe_load(raw) or {}
        else:
            value = want(raw)
    except (ValueError, yaml.YAMLError):
        raise ConfigError(f"--set {key}={raw!r}: expected {want.__name__}") from None
    return key, check_value(key, value, "--set")


def build_config(base: dict, overrides: list[str], where: str) -> Config:
    """A validated ``Config`` from a mapping plus ``--set`` overrides."""
    if not isinstance(base, dict):
        raise ConfigError(f"{where} must hold a mapping of config keys, got {type(base).__name__}")
    values = {k: check_value(k, v, where) for k, v in base.items()}
    values["rules"] = dict(values.get("rules", {}))
    for text in overrides:
        key, value = parse_set(text)
        if key.startswith("rules."):
            values["rules"][key[len("rules."):]] = value
        else:
            values[key] = value
    return Config(**values)


def load_config(path: str | Path, overrides: list[str] = ()) -> Config:
    """Read a YAML config (``yaml.safe_load``), apply ``--set`` overrides, validate."""
    with open(path) as f:
        data = yaml.safe_load(f) or {}
    return build_config(data, list(overrides), where=str(path))


# ----------------------------------------------------------------------------- training

def evaluate_against(policy, opponents: dict, deals: dict, rules, seed: int) -> dict:
    """Play ``policy`` against each baseline on its fixed duplicate deals → summaries by name."""
    from agents.arena import play_deals, summarize

    return {name: summarize(play_deals((policy, opponents[name]), d, rules, seed=seed))
            for name, d in deals.items()}


def train(cfg: Config, run_dir: Path, resume: dict | None = None) -> dict:
    """Run the training loop in ``run_dir``; returns the final evaluation summaries."""
    import torch
    from torch.utils.tensorboard import SummaryWriter
    from tqdm import tqdm

    from agents import HeuristicAgent, RandomAgent
    from agents.arena import Deals
    from agents.checkpoint import NetPolicy, rules_to_dict, save_checkpoint
    from agents.imitation import collect_demonstrations, imitation_update
    from agents.nets import PolicyValueNet
    from agents.pool import OpponentPool
    from agents.ppo import collect_hands, ppo_update
    from shengji_env import Rules
    from shengji_env.vector import VecEnv

    # --- seeding: the only place randomness is created
    torch.set_num_threads(cfg.torch_threads)
    torch.manual_seed(cfg.seed)  # network initialisation
    np_rng = np.random.default_rng(cfg.seed)  # pool draws, minibatch order
    gen = torch.Generator().manual_seed(cfg.seed)  # action sampling

    rules = Rules(**cfg.rules)
    venv = VecEnv(cfg.num_envs, rules, seed=0, reward=cfg.reward)  # reseeded every update
    net = PolicyValueNet(rules, hidden=cfg.hidden, blocks=cfg.blocks, card_head=cfg.card_head)
    optimizer = torch.optim.Adam(net.parameters(), lr=cfg.learning_rate, eps=1e-5)
    pool = OpponentPool(cfg.pool_size)
    pool_net = PolicyValueNet(rules, hidden=cfg.hidden, blocks=cfg.blocks, card_head=cfg.card_head)
    update, global_step, hands, train_s, elapsed_before, cpu_before = 0, 0, 0, 0.0, 0.0, 0.0
    if resume is not None:
        net.load_state_dict(resume["model"])
        optimizer.load_state_dict(resume["optimizer"])
        pool.load_state_dict(resume["pool"])
        np_rng.bit_generator.state = resume["rng"]["numpy"]
        torch.set_rng_state(resume["rng"]["torch"])
        gen.set_state(resume["rng"]["sample"])
        update, global_step, hands = resume["update"], resume["global_step"], resume["hands"]
        train_s, elapsed_before = resume["train_s"], resume["elapsed_s"]
        cpu_before = resume["cpu_s"]
    wall0, cpu0 = time.perf_counter(), time.process_time()

    def clock() -> tuple[float, float]:
        """(wall, cpu) seconds of this run so far, across resumes."""
        return (elapsed_before + time.perf_counter() - wall0,
                cpu_before + time.process_time() - cpu0)

    writer = SummaryWriter(str(run_dir), purge_step=global_step if resume else None)
    if resume is None:
        rows = "\n".join(f"|{k}|{v}|" for k, v in dataclasses.asdict(cfg).items())
        writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{rows}")
    eval_csv = run_dir / "eval.csv"
    _trim_eval_csv(eval_csv, update)
    opponents = {"random": RandomAgent(rules), "heuristic": HeuristicAgent(rules)}
    sizes = {"random": cfg.eval_deals_random, "heuristic": cfg.eval_deals_heuristic}
    deals = {name: Deals.generate(n, rules, cfg.eval_seed + i)
             for i, (name, n) in enumerate(sizes.items()) if n > 0}
    policy = NetPolicy(net, sample=cfg.eval_sample, name="ppo")
    sparring = HeuristicAgent(rules) if cfg.sparring_prob > 0 else None
    teacher = HeuristicAgent(rules) if cfg.imitation_updates > 0 else None

    def log_eval(results: dict, kind: str = "periodic"):
        elapsed, cpu = clock()
        new = not eval_csv.exists()
        with open(eval_csv, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["update", "global_step", "hands", "elapsed_s", "cpu_s", "train_s",
                            "opponent",
                            "eval_hands", "win_rate", "ci_low", "ci_high", "mean_reward", "kind"])
            for name, s in results.items():
                lo, hi = s["win_rate_ci"]
                writer.add_scalar(f"eval/win_rate_vs_{name}", s["win_rate"], global_step)
                writer.add_scalar(f"eval/win_rate_vs_{name}_ci_low", lo, global_step)
                writer.add_scalar(f"eval/win_rate_vs_{name}_ci_high", hi, global_step)
                writer.add_scalar(f"eval/mean_reward_vs_{name}", s["mean_reward"], global_step)
                w.writerow([update, global_step, hands, f"{elapsed:.1f}", f"{cpu:.1f}",
                            f"{train_s:.1f}", name,
                            s["hands"], f"{s['win_rate']:.4f}", f"{lo:.4f}", f"{hi:.4f}",
                            f"{s['mean_reward']:.4f}", kind])

    def checkpoint():
        save_checkpoint({
            "model": net.state_dict(), "optimizer": optimizer.state_dict(), "net": net.spec(),
            "rules": rules_to_dict(rules), "config": dataclasses.asdict(cfg),
            "pool": pool.state_dict(), "update": update, "global_step": global_step,
            "hands": hands, "elapsed_s": clock()[0], "cpu_s": clock()[1], "train_s": train_s,
            "rng": {"numpy": np_rng.bit_generator.state, "torch": torch.get_rng_state(),
                    "sample": gen.get_state()},
        }, run_dir, update, keep=cfg.keep_checkpoints)

    def log_selfplay(stats: dict):
        if stats["return_vs_pool"] is not None:
            writer.add_scalar("charts/episodic_return", stats["return_vs_pool"], global_step)
            writer.add_scalar("selfplay/win_rate_vs_pool", stats["win_rate_vs_pool"], global_step)
        if stats["win_rate_vs_baseline"] is not None:
            writer.add_scalar("selfplay/win_rate_vs_sparring", stats["win_rate_vs_baseline"],
                              global_step)
            writer.add_scalar("selfplay/sparring_fraction", stats["baseline_fraction"],
                              global_step)
        writer.add_scalar("charts/episodic_return_abs", stats["abs_return"], global_step)
        writer.add_scalar("charts/episodic_length", stats["length"], global_step)
        writer.add_scalar("charts/attacker_points", stats["attacker_points"], global_step)
        writer.add_scalar("charts/takeover_rate", stats["takeover_rate"], global_step)
        writer.add_scalar("selfplay/pool_fraction", stats["pool_fraction"], global_step)

    bar = tqdm(total=cfg.total_updates, initial=update, desc=cfg.name, unit="update",
               dynamic_ncols=True)
    last_eval: dict = {}
    while update < cfg.total_updates:
        update += 1
        start = time.perf_counter()
        imitating = update <= cfg.imitation_updates
        lr = cfg.learning_rate * (1 - (update - 1) / cfg.total_updates if cfg.anneal_lr else 1)
        lr = cfg.imitation_learning_rate if imitating else lr
        for group in optimizer.param_groups:
            group["lr"] = lr
        torch.set_num_threads(cfg.collect_threads)
        if imitating:
            student_prob = cfg.imitation_student_prob * (update - 1) / cfg.imitation_updates
            batch, stats = collect_demonstrations(
                venv, teacher, net, seed=cfg.seed, update=update,
                hands_per_env=cfg.hands_per_env, student_prob=student_prob, np_rng=np_rng,
                gen=gen, shaping=cfg.shaping)
        else:
            batch, stats = collect_hands(
                venv, net, seed=cfg.seed, update=update, hands_per_env=cfg.hands_per_env,
                gamma=cfg.gamma, gae_lambda=cfg.gae_lambda, np_rng=np_rng, gen=gen, pool=pool,
                pool_net=pool_net, pool_prob=cfg.pool_prob, shaping=cfg.shaping,
                baseline=sparring, baseline_prob=cfg.sparring_prob)
        collected = time.perf_counter()
        torch.set_num_threads(cfg.torch_threads)
        if imitating:
            losses = imitation_update(
                net, optimizer, batch, epochs=cfg.imitation_epochs,
                minibatch_size=cfg.imitation_minibatch_size, vf_coef=cfg.vf_coef,
                max_grad_norm=cfg.max_grad_norm, np_rng=np_rng)
        else:
            losses = ppo_update(
                net, optimizer, batch, epochs=cfg.update_epochs,
                minibatch_size=cfg.minibatch_size, clip_coef=cfg.clip_coef,
                ent_coef=cfg.ent_coef, vf_coef=cfg.vf_coef, max_grad_norm=cfg.max_grad_norm,
                norm_adv=cfg.norm_adv, clip_vloss=cfg.clip_vloss, target_kl=cfg.target_kl,
                np_rng=np_rng)
        done_at = time.perf_counter()
        global_step += stats["decisions"]
        hands += stats["hands"]
        took = done_at - start
        train_s += took

        writer.add_scalar("charts/learning_rate", lr, global_step)
        writer.add_scalar("charts/hands", hands, global_step)
        if imitating:
            writer.add_scalar("imitation/student_fraction", stats["student_fraction"],
                              global_step)
            for key in ("student_agreement", "win_rate_vs_teacher"):
                if stats[key] is not None:
                    writer.add_scalar(f"imitation/{key}", stats[key], global_step)
        else:
            log_selfplay(stats)
        for k, v in losses.items():
            writer.add_scalar(f"losses/{k}", v, global_step)
        writer.add_scalar("selfplay/pool_size", len(pool), global_step)
        writer.add_scalar("perf/SPS", stats["decisions"] / took, global_step)
        writer.add_scalar("perf/collect_s", collected - start, global_step)
        writer.add_scalar("perf/update_s", done_at - collected, global_step)
        writer.add_scalar("perf/decisions_per_update", len(batch), global_step)

        if cfg.pool_prob > 0 and update % cfg.pool_every == 0:
            pool.add(net, update)
        out_of_time = cfg.time_limit_minutes > 0 and clock()[0] >= 60 * cfg.time_limit_minutes
        last = update == cfg.total_updates or out_of_time
        if (cfg.eval_every and update % cfg.eval_every == 0) and not last:
            t = time.perf_counter()
            last_eval = evaluate_against(policy, opponents, deals, rules, cfg.eval_seed)
            writer.add_scalar("perf/eval_s", time.perf_counter() - t, global_step)
            log_eval(last_eval)
        if update % cfg.checkpoint_every == 0 or last:
            checkpoint()
        bar.update(1)
        post = {"SPS": f"{stats['decisions'] / took:.0f}"}
        if imitating:
            post["acc"] = f"{losses['accuracy']:.3f}"
        else:
            post["len"] = f"{stats['length']:.0f}"
        post.update({f"vs_{k}": f"{v['win_rate']:.2f}" for k, v in last_eval.items()})
        bar.set_postfix(post)
        if out_of_time:
            break
    bar.close()

    # --- final evaluation on a larger fixed deal set
    final_deals = {name: Deals.generate(cfg.final_eval_deals, rules, cfg.eval_seed + 2 + i)
                   for i, name in enumerate(opponents)}
    results = evaluate_against(policy, opponents, final_deals, rules, cfg.eval_seed)
    log_eval(results, "final")
    writer.close()
    return results


def _trim_eval_csv(path: Path, update: int) -> None:
    """Drop evaluation rows a killed run wrote after the checkpoint being resumed."""
    if not path.exists():
        return
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    keep = rows[:1] + [r for r in rows[1:] if int(r[0]) <= update]
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(keep)


def format_table(results: dict, cfg: Config, run_dir: Path) -> str:
    """The final evaluation as a small text table."""
    lines = [(f"\nfinal evaluation of {run_dir} ({'sampled' if cfg.eval_sample else 'greedy'} "
              f"policy), {cfg.final_eval_deals} duplicate deals per baseline (teams swapped)"),
             f"{'opponent':<11}{'hands':>6}  {'win rate':>8}  {'95% CI':<17}{'mean reward':>12}"]
    for name, s in results.items():
        lo, hi = s["win_rate_ci"]
        lines.append(f"{name:<11}{s['hands']:>6}  {100 * s['win_rate']:7.1f}%  "
                     f"[{100 * lo:5.1f}%, {100 * hi:5.1f}%]  {s['mean_reward']:+11.3f}")
    return "\n".join(lines)


def new_run_dir(cfg: Config) -> Path:
    root = Path(cfg.run_root)
    stamp = int(time.time())
    while True:
        run_dir = root / f"{cfg.name}__{cfg.seed}__{stamp}"
        try:
            run_dir.mkdir(parents=True)
            return run_dir
        except FileExistsError:
            stamp += 1


def build_parser() -> argparse.ArgumentParser:
    docs = field_docs()
    defaults = Config()
    epilog = "config keys (YAML or --set KEY=VALUE):\n" + "\n".join(
        f"  {k:<22}{TYPES[k].__name__:<6} {getattr(defaults, k)!r:<10} {' '.join(docs.get(k, '').split())}"
        for k in FIELDS)
    p = argparse.ArgumentParser(prog="train.py", epilog=epilog,
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                description="PPO self-play for Shengji; see the module docstring.")
    p.add_argument("--config", help="YAML config file (configs/*.yaml)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config key (repeatable); rules.OPTION=VALUE for a rule")
    p.add_argument("--resume", metavar="RUN_DIR",
                   help="continue the run in RUN_DIR from its newest checkpoint")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        if args.resume:
            if args.config:
                raise ConfigError("--resume uses the run's saved config; change fields with "
                                  "--set, not --config")
            from agents.checkpoint import load_checkpoint

            resume = load_checkpoint(args.resume)
            run_dir = Path(args.resume)
            cfg = build_config(resume["config"], args.set, where=f"{run_dir}/checkpoint")
        elif args.config:
            resume = None
            cfg = load_config(args.config, args.set)
        else:
            raise ConfigError("give --config configs/<name>.yaml (or --resume RUN_DIR)")
    except (ConfigError, FileNotFoundError) as e:
        print(f"train.py: {e}", file=sys.stderr)
        return 2
    if resume is None:
        run_dir = new_run_dir(cfg)
    with open(run_dir / "config.yaml", "w") as f:
        yaml.safe_dump(dataclasses.asdict(cfg), f, sort_keys=False)
    print(f"run folder: {run_dir}", flush=True)
    results = train(cfg, run_dir, resume)
    print(format_table(results, cfg, run_dir), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

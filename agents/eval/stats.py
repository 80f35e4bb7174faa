"""Statistics of duplicate-deal results: Wilson intervals for win rates, Student-t intervals
for means, the per-match summary and OpenSkill ratings of a round robin."""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

__all__ = ["RATING_ORDERS", "Z95", "mean_ci", "ratings", "summarize", "wilson"]

Z95 = float(stats.norm.ppf(0.975))
#: passes over the hands, each in another order of the deals, that ``ratings`` averages
RATING_ORDERS = 16


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (95% by default); ``(nan, nan)`` when n = 0."""
    if n == 0:
        return (math.nan, math.nan)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def mean_ci(x: np.ndarray, confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, low, high): Student-t interval of the mean; nan bounds for fewer than 2 values."""
    x = np.asarray(x, dtype=np.float64)
    if x.size == 0:
        return (math.nan, math.nan, math.nan)
    m = float(x.mean())
    if x.size < 2 or x.std() == 0:
        return (m, m, m) if x.size >= 2 else (m, math.nan, math.nan)
    half = float(stats.t.ppf(0.5 + confidence / 2, x.size - 1) * x.std(ddof=1) / math.sqrt(x.size))
    return (m, m - half, m + half)


def summarize(rec) -> dict:
    """Agent A's numbers from ``rec`` (``arena.HandRecords``): hand win rate (Wilson CI), mean
    reward and attackers' points (t intervals) when A attacks and when A defends (is the dealer
    side)."""
    n, won = len(rec), int(rec.a_won.sum())
    lo, hi = wilson(won, n)
    reward = mean_ci(rec.a_reward)
    attack = _points_ci(rec.attacker_points[~rec.a_dealer])
    defend = _points_ci(rec.attacker_points[rec.a_dealer])

    def rate(rows):
        return float(rec.a_won[rows].mean()) if rows.any() else None

    return {
        "hands": n, "deals": n // 2, "wins": won, "win_rate": won / n if n else None,
        "win_rate_ci": [lo, hi],
        "mean_reward": reward[0], "mean_reward_ci": [reward[1], reward[2]],
        "dealer_share": float(rec.a_dealer.mean()) if n else None,
        "win_rate_as_dealer": rate(rec.a_dealer), "win_rate_as_attacker": rate(~rec.a_dealer),
        "attacker_points_attacking": attack[0],
        "attacker_points_attacking_ci": [attack[1], attack[2]],
        "attacker_points_defending": defend[0],
        "attacker_points_defending_ci": [defend[1], defend[2]],
    }


def _points_ci(points: np.ndarray) -> tuple:
    """``mean_ci`` of attackers' points; ``None`` for a side with no hands (not NaN: the report
    says "no hands"), and the interval's lower end not below the points' lower bound (0, unless
    throw penalties took some hand below it: the t interval is symmetric, the points are not)."""
    if points.size == 0:
        return (None, None, None)
    m, lo, hi = mean_ci(points)
    floor = min(0.0, float(points.min()))
    return (m, None if math.isnan(lo) else max(lo, floor), None if math.isnan(hi) else hi)


def ratings(names: list[str], matches: dict, orders: int = RATING_ORDERS, seed: int = 0) -> list[dict]:
    """OpenSkill (Plackett-Luce) ratings from every hand of a round robin.

    OpenSkill updates online, so one pass over the hands rates the last hands more than the
    first: with a near-even result the agent that won the last few hands can come out ahead of
    the one that won more (a 216-184 match once rated the winner 24.97 against 25.03). The
    ratings are therefore the mean ``mu`` and ``sigma`` over ``orders`` passes, each over the
    deals in a different order (seeded by ``seed``: the same matches give the same table).
    Within a deal, the hands of all pairings are replayed together (not pairing by pairing),
    so the order of the pairings does not bias the updates either. Returns one dict per agent,
    sorted by the conservative estimate ``mu - 3·sigma`` (best first).
    """
    from openskill.models import PlackettLuce

    if isinstance(orders, bool) or not isinstance(orders, int) or orders < 1:
        raise ValueError(f"orders={orders!r}; expected an int >= 1 (passes over the hands)")
    model = PlackettLuce()
    deals = max((int(r.deal.max()) + 1 for r in matches.values() if len(r)), default=0)
    by_deal = {key: np.searchsorted(r.deal, np.arange(deals + 1)) for key, r in matches.items()}
    rng = np.random.default_rng(seed)
    mu = np.zeros(len(names))
    sigma = np.zeros(len(names))
    for _ in range(orders):
        table = [model.rating(name=n) for n in names]
        for d in rng.permutation(deals):
            for (i, j), rec in matches.items():
                start, stop = by_deal[(i, j)][d], by_deal[(i, j)][d + 1]
                for row in range(start, stop):
                    ranks = [0, 1] if rec.a_won[row] else [1, 0]
                    new = model.rate([[table[i]], [table[j]]], ranks=ranks)
                    table[i], table[j] = new[0][0], new[1][0]
        mu += [r.mu for r in table]
        sigma += [r.sigma for r in table]
    mu, sigma = mu / orders, sigma / orders
    out = [{"agent": n, "mu": float(m), "sigma": float(s), "ordinal": float(m - 3 * s)}
           for n, m, s in zip(names, mu, sigma, strict=True)]
    return sorted(out, key=lambda x: -x["ordinal"])

"""Exact references for the draw, written apart from the engine and solved by other libraries:
networkx's blossom for two-sided rounds, CBC (through PuLP) for tables of three."""
from __future__ import annotations

from itertools import combinations

import networkx as nx


def min_two_sided_violations(field) -> int:
    """The fewest rematches plus second byes any draw of `field` can have: every pair (and the bye) not yet
    met is an allowed edge; a maximum matching of those leaves the rest to be paired badly."""
    n = len(field)
    g = nx.Graph()
    g.add_nodes_from(range(n + n % 2))
    for a, b in combinations(range(n), 2):
        if field[b].id not in field[a].opponents:
            g.add_edge(a, b)
    if n % 2:
        for a in range(n):
            if not field[a].byes:
                g.add_edge(a, n)
    return (n + n % 2) // 2 - len(nx.max_weight_matching(g, maxcardinality=True))


def min_cost_given_byes(field, byes, cost) -> float:
    """The least total `cost(a, b)` of a perfect matching of the field without `byes` (every pair allowed)."""
    cs = [c for c in field if c.id not in byes]
    g = nx.Graph()
    big = 10 ** 12
    for a, b in combinations(cs, 2):
        g.add_edge(a.id, b.id, weight=big - cost(a, b))
    by = {c.id: c for c in cs}
    return sum(cost(by[a], by[b]) for a, b in nx.max_weight_matching(g, maxcardinality=True))


def min_three_seat_violations(field) -> int:
    """Repeated table-mate pairs plus second byes of the best grouping of `field` into tables of three (len % 3
    byes): the fewest second byes first (rules.md §2: byes go to players who have not had one), then the fewest
    repeats; by an integer programme solved with CBC."""
    import pulp

    n = len(field)
    n_byes = n % 3
    prob = pulp.LpProblem("three_seat", pulp.LpMinimize)
    x, cover = {}, {k: [] for k in range(n)}
    cost = []
    for t in combinations(range(n), 3):
        v = pulp.LpVariable("t_" + "_".join(map(str, t)), cat="Binary")
        x[t] = v
        reps = sum(1 for a, b in combinations(t, 2) if field[b].id in field[a].opponents)
        cost.append(reps * v)
        for k in t:
            cover[k].append(v)
    bye_vars = []
    if n_byes:
        for k in range(n):
            v = pulp.LpVariable(f"bye_{k}", cat="Binary")
            bye_vars.append(v)
            cover[k].append(v)
            cost.append(((n + 1) if field[k].byes else 0) * v)   # outweighs every repeat (n pairs at most)
        prob += pulp.lpSum(bye_vars) == n_byes
    prob += pulp.lpSum(cost)
    for k in range(n):
        prob += pulp.lpSum(cover[k]) == 1
    prob.solve(pulp.PULP_CBC_CMD(msg=0))
    assert pulp.LpStatus[prob.status] == "Optimal"
    second_byes = sum(round(pulp.value(v)) for k, v in enumerate(bye_vars) if field[k].byes)
    return round(pulp.value(prob.objective) or 0) - n * second_byes

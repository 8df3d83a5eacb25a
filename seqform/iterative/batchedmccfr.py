"""External-sampling MCCFR in batches: many sampled episodes at once over the compiled arrays.

External sampling (Lanctot, Waugh, Zinkevich & Bowling 2009; ``seqform.iterative.mccfr``) walks,
for the update player ``i``, every action of ``i`` and one sampled action of chance and of the
other players. This module runs ``batch`` such episodes together, against one snapshot of the
current strategies, level by level with numpy instead of one Python call per node:

1. **down**: a frontier of (episode, node) pairs, starting at the root once per episode. At a
   node of ``i`` every child joins the next frontier; at a node of another player or of chance
   one child does, drawn from that player's current strategy or chance's probabilities (one
   uniform number per pair, against the cumulative probabilities of the node's actions).
2. **up**: from the deepest frontier to the root, a node's sampled value is its leaf payoff, its
   strategy-weighted children's values (``i``'s nodes), or its one child's value; at ``i``'s nodes
   each action's regret grows by ``v(a) - v`` (``np.add.at`` over the sequences).
3. the average strategy, as OpenSpiel's "simple" average: at every visited node of player
   ``i + 1 mod N``, that player's current strategy is added.

Updates alternate between players batch by batch: the ``batch`` episodes of player 0 update its
regrets, then player 1's episodes run against player 0's new strategy. With ``batch=1`` this is
external-sampling MCCFR exactly (the same distribution of runs as ``MonteCarloCFR``; a test
compares them); a larger batch updates the strategies once per ``batch`` iterations, which is
what makes the numpy work pay (a trajectory alone is too small for it), and changes the algorithm
to a mini-batch one: each batch's regret increment is an unbiased estimate of ``batch`` times
CFR's at the snapshot. ``iteration`` counts episodes per player, as MCCFR's iterations do, and
``nodes_touched`` the frontier pairs.

References:

- Lanctot, Waugh, Zinkevich & Bowling (2009), "Monte Carlo Sampling for Regret Minimization in Extensive Games", NIPS.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import seqform.iterative.checkpoint as checkpoint
from seqform.errors import CheckpointError, SeqformError
from seqform.iterative.mccfr import normalised
from seqform.model.game import CHANCE, TERMINAL, Game
from seqform.model.limits import check_solver_tables
from seqform.model.strategy import Profile
from seqform.model.tree import Tree, compile_tree

CHECKPOINT_FORMAT = "seqform-batched-mccfr-checkpoint-1"


#: the tables' bytes (``seqform.model.limits.check_solver_tables``): per node the children's CSR,
#: players, information sets, first sequences and utilities (~70-100 bytes measured on Leduc 5
#: ranks, Liar's Dice 1x5, Goofspiel 4), regrets and averages per sequence
TABLE_BYTES = {"per_node": 160, "per_sequence": 64}


def table_extra(tree: Tree, batch: int) -> int:
    """Bytes beyond ``TABLE_BYTES``: the chance table (cumulative probabilities, one row per chance
    node as wide as the widest node, twice while built) and one batch's frontier (~128 bytes per
    node an episode touches: its level's node, player, parent, weight and sequence arrays and the
    way back up), ``batch`` times ``episode_nodes``."""
    n = int(tree.num_nodes)
    kmax = int(np.bincount(tree.parent[1:], minlength=n).max()) if n > 1 else 1
    chance = max(len(tree.chance_nodes), 1) * kmax * 16
    return chance + batch * episode_nodes(tree) * 128


def episode_nodes(tree: Tree) -> int:
    """The most nodes one external-sampling episode can touch, over the traversing players: every
    child of the traverser's nodes, the largest child's count elsewhere (one child is sampled), by
    one pass up the tree's levels. (An outcome-sampling episode touches one path: fewer.)"""
    n = int(tree.num_nodes)
    if n <= 1:
        return n
    parent = np.asarray(tree.parent, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    while True:  # parents come before their children, so a path of d nodes settles in d passes
        nxt = np.concatenate(([0], depth[parent[1:]] + 1))
        if np.array_equal(nxt, depth):
            break
        depth = nxt
    order = np.argsort(depth, kind="stable")
    bounds = np.searchsorted(depth[order], np.arange(int(depth.max()) + 2))
    most = 0
    for i in range(int(tree.num_players)):
        mine = np.asarray(tree.player) == i
        touched = np.ones(n)
        for d in range(int(depth.max()), 0, -1):
            lvl = order[bounds[d] : bounds[d + 1]]
            par = parent[lvl]
            summed = np.zeros(n)
            np.add.at(summed, par, touched[lvl])
            largest = np.zeros(n)
            np.maximum.at(largest, par, touched[lvl])
            ups = np.unique(par)
            touched[ups] = 1 + np.where(mine[ups], summed[ups], largest[ups])
        most = max(most, int(touched[0]))
    return most


class BatchedExternalSampling:
    """External-sampling MCCFR, ``batch`` episodes at a time (module docstring).

    Parameters
    ----------
    game : Game or Tree
    batch : int
        Episodes per player per strategy update (1: plain external sampling).
    seed : int
        Seed of numpy's random generator (its state is in the checkpoints).

    Examples
    --------
    >>> import seqform
    >>> from seqform.iterative.batchedmccfr import BatchedExternalSampling
    >>> s = BatchedExternalSampling(seqform.games.load("kuhn"), batch=64, seed=1)
    >>> s.step(20000)
    >>> seqform.exploitability(s.tree, s.average_profile()).exploitability < 0.02
    True
    """

    def __init__(self, game: Game | Tree, *, batch: int = 128, seed: int = 0, memory_limit_bytes: int | None = None):
        if int(batch) != batch or batch < 1:
            raise SeqformError(f"batch must be a positive integer, got {batch}")
        tree = game if isinstance(game, Tree) else compile_tree(game, memory_limit_bytes=memory_limit_bytes)
        check_solver_tables(
            tree, "batched MCCFR", **TABLE_BYTES, extra=table_extra(tree, int(batch)), limit_bytes=memory_limit_bytes
        )
        self.tree, self.batch, self.seed = tree, int(batch), seed
        self.algorithm = "es-mccfr-batched"
        self.rng = np.random.default_rng(seed)
        self.iteration = 0
        self.nodes_touched = 0
        N = self.num_players = tree.num_players
        n = tree.num_nodes
        # children of every node in action order (a CSR over the nodes)
        self._kids = np.lexsort((tree.action[1:], tree.parent[1:])) + 1
        self._count = np.bincount(tree.parent[1:], minlength=n)
        self._first = np.concatenate(([0], np.cumsum(self._count)[:-1]))
        self._player = tree.player
        self._infoset = tree.infoset
        dec = tree.infoset >= 0
        self._fseq = np.where(dec, tree.infoset_first_seq[np.maximum(tree.infoset, 0)], 0)
        kmax = int(self._count.max()) if n > 1 else 1
        self._kmax = kmax
        # chance: each chance node's cumulative probabilities, padded with its total
        self._chance_row = np.full(n, -1)
        self._chance_row[tree.chance_nodes] = np.arange(len(tree.chance_nodes))
        table = np.zeros((max(len(tree.chance_nodes), 1), kmax))
        for r, probs in enumerate(tree.chance_probs):
            table[r, : len(probs)] = [float(q) for q in probs]
        self._chance_cum = np.cumsum(table, axis=1)
        self._util = np.zeros((N, n))
        self._util[:, tree.terminals] = tree.payoff.T
        self._leaf = tree.player == TERMINAL
        M = len(tree.infoset_player)
        self._M = M
        # every player's sequences in one flat array (a batch's snapshot of the regrets): node h's
        # first action is flat index _gseq[h]
        self._offset = np.concatenate(([0], np.cumsum(tree.num_sequences)[:-1])).astype(np.int64)
        self._gseq = np.where(dec, self._offset[np.maximum(tree.player, 0)] + self._fseq, 0)
        self._cols = np.arange(kmax)
        self._set_g = self._offset[tree.infoset_player] + tree.infoset_first_seq if M else np.zeros(0, np.int64)
        self._table: tuple | None = None
        self._last_touched = [0] * N
        self.regret = [np.zeros(tree.num_sequences[p]) for p in range(N)]
        self.cumulative = [np.zeros(tree.num_sequences[p]) for p in range(N)]

    # --- strategies -------------------------------------------------------------------------

    def current_profile(self) -> Profile:
        """Regret matching on the accumulated regrets: behavioural, shape (num_sequences[p],)."""
        return Profile(normalised(self.tree, self.regret, True))

    def average_profile(self) -> Profile:
        """The average strategy: cumulative strategy normalised, uniform where it is zero."""
        return Profile(normalised(self.tree, self.cumulative, False))

    def _matching(self, flat: np.ndarray, g: np.ndarray, k: np.ndarray) -> tuple:
        """Regret matching at a batch of information sets, from the snapshot ``flat`` (every
        player's regrets, concatenated): ``g`` (n,) the flat index of each set's first action,
        ``k`` (n,) its number of actions. Returns the probabilities, (n, kmax) padded with 0, and
        the mask of real actions. Only the sets the samples reach are computed, which is what keeps
        a batch's cost proportional to the part of the tree it reaches."""
        valid = self._cols < k[:, None]
        v = np.maximum(flat[np.where(valid, g[:, None] + self._cols, 0)], 0.0) * valid
        tot = v.sum(axis=1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            probs = np.where(tot > 0, v / np.where(tot > 0, tot, 1.0), valid / k[:, None])
        return probs, valid

    # --- iterations -------------------------------------------------------------------------

    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` iterations: batches of ``batch`` episodes per player (the last one
        smaller when ``iterations`` is not a multiple)."""
        left = int(iterations)
        while left > 0:
            b = min(self.batch, left)
            for i in range(self.num_players):
                self._episodes(i, b)
            self.iteration += b
            left -= b

    def _snapshot(self, i: int) -> np.ndarray:
        """The regrets every sample of the batch plays against, flat. When the last batch of player
        ``i`` touched more nodes than there are information sets, the strategy of every set is
        computed at once (the same arithmetic row by row, so the same numbers) instead of at each
        touched node."""
        flat = np.concatenate(self.regret)
        self._table = None
        if self._M and self._last_touched[i] > self._M:
            self._table = self._matching(flat, self._set_g, self.tree.infoset_num_actions)
        return flat

    def _policy(self, flat: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``_matching`` at the information sets of decision nodes ``h``."""
        if self._table is not None:
            ids = self._infoset[h]
            return self._table[0][ids], self._table[1][ids]
        return self._matching(flat, self._gseq[h], self._count[h])

    def _draw(self, nodes: np.ndarray, cum: np.ndarray) -> np.ndarray:
        """One child index per node, drawn against the rows ``cum`` of cumulative probabilities."""
        u = self.rng.random(len(nodes))
        a = (u[:, None] >= cum).sum(axis=1)
        return np.minimum(a, self._count[nodes] - 1)  # rounding: a total a hair short of 1

    def _average_update(self, p: int, visits: np.ndarray, flat: np.ndarray) -> None:
        """The "simple" average of OpenSpiel: player ``p``'s snapshot strategy, times the number of
        times each of its information sets was visited (``visits``, per set), added to its
        cumulative strategy."""
        t = self.tree
        ms = np.flatnonzero(visits)
        if not len(ms):
            return
        k = t.infoset_num_actions[ms]
        f = t.infoset_first_seq[ms]
        probs, valid = self._matching(flat, self._offset[p] + f, k)
        seqs = (f[:, None] + self._cols)[valid]
        self.cumulative[p][seqs] += (visits[ms][:, None] * probs)[valid]

    def _episodes(self, i: int, B: int) -> None:
        flat = self._snapshot(i)  # what every episode of the batch plays against
        player, kids, first, count = self._player, self._kids, self._first, self._count
        nxt = (i + 1) % self.num_players
        # down: per level, the pairs' nodes, their parents' positions one level up, the weight of
        # each pair in its parent's value, and (for children of i's nodes) their sequence
        node = np.zeros(B, dtype=np.int64)
        levels: list[tuple] = []
        visits = np.zeros(max(self._M, 1))
        while len(node):
            pl = player[node]
            mine = np.flatnonzero(pl == i)
            other = np.flatnonzero((pl >= 0) & (pl != i))
            chance = np.flatnonzero(pl == CHANCE)
            np.add.at(visits, self._infoset[node[other[pl[other] == nxt]]], 1.0)
            hm, ho, hc = node[mine], node[other], node[chance]
            k = count[hm]
            pm, vm = self._policy(flat, hm)
            par_m = np.repeat(mine, k)
            act = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
            seq_m = np.repeat(self._fseq[hm], k) + act
            child_m = kids[np.repeat(first[hm], k) + act]
            po, _ = self._policy(flat, ho)
            child_o = kids[first[ho] + self._draw(ho, np.cumsum(po, axis=1))]
            child_c = kids[first[hc] + self._draw(hc, self._chance_cum[self._chance_row[hc]])]
            levels.append((node, pl))
            node = np.concatenate((child_m, child_o, child_c))
            parent = np.concatenate((par_m, other, chance))
            weight = np.concatenate((pm[vm], np.ones(len(other) + len(chance))))
            levels[-1] += (parent, weight, seq_m, len(child_m))
        self._last_touched[i] = sum(len(lv[0]) for lv in levels)
        self.nodes_touched += self._last_touched[i]
        # up
        util = self._util[i]
        value = None
        R = self.regret[i]
        for lv_node, pl, parent, weight, seq_m, n_m in reversed(levels):
            v = util[lv_node].copy()
            if value is not None and len(value):
                acc = np.zeros(len(lv_node))
                np.add.at(acc, parent, weight * value)
                inner = pl != TERMINAL
                v[inner] = acc[inner]
                # children of i's nodes come first in the level below: regret v(a) - v
                np.add.at(R, seq_m, value[:n_m] - v[parent[:n_m]])
            value = v
        # the average strategy: player i + 1's strategy at each of its visited nodes
        self._average_update(nxt, visits, flat)

    # --- checkpoints ------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write regrets, cumulative strategies, counters and the generator's state (``.npz``)."""
        meta = {
            "format": CHECKPOINT_FORMAT,
            "algorithm": self.algorithm,
            "batch": self.batch,
            "seed": self.seed,
            "exploration": getattr(self, "exploration", None),
            "iteration": self.iteration,
            "nodes_touched": self.nodes_touched,
            "game": self.tree.name,
            "num_sequences": [int(x) for x in self.tree.num_sequences],
            "rng": self.rng.bit_generator.state,
        }
        arrays = {f"{k}{p}": getattr(self, k)[p] for k in ("regret", "cumulative") for p in range(self.num_players)}
        checkpoint.write(path, meta, arrays)

    @classmethod
    def load(cls, path: str | Path, game: Game | Tree) -> BatchedExternalSampling:
        """Resume a run saved by ``save``: the next iterations are bit for bit the saved run's."""
        meta, arrays = checkpoint.read(path, CHECKPOINT_FORMAT, "batched MCCFR")
        extra = {"exploration": meta["exploration"]} if meta.get("exploration") is not None else {}
        expected = "os-mccfr-batched" if issubclass(cls, BatchedOutcomeSampling) else "es-mccfr-batched"
        if meta.get("algorithm", expected) != expected:
            raise CheckpointError(f"{path} holds a {meta['algorithm']!r} run, not {expected!r}")
        s = cls(game, batch=meta["batch"], seed=meta["seed"], **extra)
        if [int(x) for x in s.tree.num_sequences] != meta["num_sequences"]:
            raise CheckpointError(f"{path}: saved for {meta['game']!r}, whose sequences do not match {s.tree.name!r}")
        for k in ("regret", "cumulative"):
            setattr(s, k, [arrays[f"{k}{p}"] for p in range(s.num_players)])
        s.iteration, s.nodes_touched = meta["iteration"], meta["nodes_touched"]
        s.rng.bit_generator.state = meta["rng"]
        return s


class BatchedOutcomeSampling(BatchedExternalSampling):
    """Outcome-sampling MCCFR, ``batch`` trajectories at a time against one snapshot of the
    strategies (``seqform.iterative.mccfr``'s definitions: the update player samples from
    ``exploration`` x uniform + (1 - ``exploration``) x its strategy, values importance-weighted,
    no baseline). Each trajectory is one path: the paths go down together, one level a step,
    recording each decision, then come back up in reverse. ``batch=1`` is outcome sampling.

    Examples
    --------
    >>> import seqform
    >>> from seqform.iterative.batchedmccfr import BatchedOutcomeSampling
    >>> s = BatchedOutcomeSampling(seqform.games.load("kuhn"), batch=64, seed=1)
    >>> s.step(50000)
    >>> seqform.exploitability(s.tree, s.average_profile()).exploitability < 0.05
    True
    """

    def __init__(
        self,
        game: Game | Tree,
        *,
        batch: int = 512,
        seed: int = 0,
        exploration: float = 0.6,
        memory_limit_bytes: int | None = None,
    ):
        if not 0 <= exploration <= 1:
            raise SeqformError(f"exploration must lie in [0, 1], got {exploration}")
        super().__init__(game, batch=batch, seed=seed, memory_limit_bytes=memory_limit_bytes)
        self.algorithm = "os-mccfr-batched"
        self.exploration = float(exploration)

    def _episodes(self, i: int, B: int) -> None:
        flat = self._snapshot(i)
        e = self.exploration
        player, kids, first, count = self._player, self._kids, self._first, self._count
        entry = np.arange(B)
        node = np.zeros(B, dtype=np.int64)
        my, opp, smp = np.ones(B), np.ones(B), np.ones(B)
        steps = []
        touched = B
        while True:
            live = np.flatnonzero(~self._leaf[node[entry]]) if len(entry) else entry
            entry = entry[live]
            if not len(entry):
                break
            h = node[entry]
            pl = player[h]
            a = np.empty(len(entry), dtype=np.int64)
            q = np.empty(len(entry))  # the probability the sample took
            ch = pl == CHANCE
            c = np.flatnonzero(ch)
            if len(c):
                rows = self._chance_cum[self._chance_row[h[c]]]
                a[c] = self._draw(h[c], rows)
                lo = np.where(a[c] > 0, rows[np.arange(len(c)), np.maximum(a[c] - 1, 0)], 0.0)
                q[c] = rows[np.arange(len(c)), a[c]] - lo
            dec = np.flatnonzero(~ch)
            hd = h[dec]
            k = count[hd]
            probs, valid = self._policy(flat, hd)
            mine_d = pl[dec] == i
            # the update player samples from exploration x uniform + (1 - exploration) x sigma
            sampling = np.where(mine_d[:, None], e * valid / k[:, None] + (1.0 - e) * probs, probs)
            ad = self._draw(hd, np.cumsum(sampling, axis=1))
            rng_d = np.arange(len(dec))
            a[dec], q[dec] = ad, sampling[rng_d, ad]
            sig = probs[rng_d, ad]
            m = np.flatnonzero(mine_d)
            ed = entry[dec]
            steps.append(
                (
                    ed[m],
                    self._fseq[hd[m]],
                    k[m],
                    ad[m],
                    sig[m],
                    q[dec][m],
                    probs[m],
                    my[ed[m]].copy(),
                    opp[ed[m]].copy(),
                    smp[ed[m]].copy(),
                    ed,
                    sig,
                    q[dec],
                )
            )
            my[ed[m]] *= sig[m]
            o = np.flatnonzero(~mine_d)
            opp[ed[o]] *= sig[o]
            opp[entry[c]] *= q[c]
            smp[entry] *= q
            node[entry] = kids[first[h] + a]
            touched += len(entry)
        self._last_touched[i] = touched
        self.nodes_touched += touched
        value = self._util[i][node].copy()
        R, C = self.regret[i], self.cumulative[i]
        cols = self._cols
        for em, f, k, a, sig_m, q_m, probs, my0, opp0, smp0, ed, sig, q in reversed(steps):
            corrected = value[ed] / q
            new = sig * corrected
            if len(em):
                cm = value[em] / q_m
                valid = cols < k[:, None]
                seqs = (f[:, None] + cols)[valid]
                hit = cols == a[:, None]
                inc = (hit * cm[:, None] - (sig_m * cm)[:, None]) * (opp0 / smp0)[:, None]
                np.add.at(R, seqs, inc[valid])
                np.add.at(C, seqs, ((my0 / smp0)[:, None] * probs)[valid])
            value[ed] = new  # a chance step passes its sampled child's value up unchanged


__all__ = ["BatchedExternalSampling", "BatchedOutcomeSampling"]

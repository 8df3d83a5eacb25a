"""Monte Carlo CFR: external sampling and outcome sampling (Lanctot, Waugh, Zinkevich & Bowling
2009, "Monte Carlo Sampling for Regret Minimization in Extensive Games"), with OpenSpiel's
definitions (its ``external_sampling_mccfr`` and ``outcome_sampling_mccfr``), so that the two can
be compared run for run in distribution; and chance-sampled CFR (Zinkevich, Johanson, Bowling &
Piccione 2007, section 4).

One iteration is one episode per player as the *update player* ``i``, from the root:

* **external sampling** (``"external"``): chance and the other players sample one action from
  their current strategies (chance from its probabilities); ``i`` walks all of its actions. At
  ``i``'s information sets the regret of action a grows by ``v(a) - v``, the sampled values of the
  action and of the current strategy. The average strategy is OpenSpiel's "simple" average: at
  nodes of player ``i + 1 mod N``, add that player's current strategy (stochastically weighted
  averaging; in two players, the usual update at the opponent's nodes). With more than two players
  the sampled reach of the third players is not divided out, so this average is not the unbiased
  one (OpenSpiel's note on its ``AverageType.SIMPLE``); OpenSpiel keeps it as its default for any
  number of players, and so does this module.
* **outcome sampling** (``"outcome"``): one trajectory; ``i`` samples from ``exploration`` x
  uniform + (1 - ``exploration``) x current (OpenSpiel: 0.6), the others and chance from their
  strategies. Values are importance-weighted by the sampling reach (no baseline: OpenSpiel's
  vanilla outcome sampling). Regrets: ``(v(a) - v) * opp_reach / sample_reach`` with ``v(a)`` the
  corrected child value (zero for unsampled actions); the average strategy at ``i``'s information
  sets grows by ``my_reach * sigma(a) / sample_reach``.
* **chance sampling** (``"chance"``, ``seqform verify cs-cfr``): each iteration draws one outcome
  at every chance node it reaches (with chance's probabilities; drawn once and shared by the
  players' episodes, as Zinkevich et al. sample one deal per iteration); the episode of ``i``
  walks every action of every player below those outcomes. Regrets grow by
  ``opp_reach * (v(a) - v)``, the average strategy by ``my_reach * sigma(a)`` (uniform weights),
  with the players' reaches only: chance is sampled, so the sampled counterfactual values are
  unbiased. Updates alternate (the episodes of players 0, 1, ..., N-1 in turn, each against the
  others' newest strategies). No pruning: a subtree whose reach is zero is still walked, as in vanilla CFR.

Regret matching: positive regrets normalised, uniform when none is positive. The average
strategy is the cumulative one normalised, uniform where it is zero.

The work of an iteration is proportional to the nodes it visits, not to the tree: ``nodes_touched``
counts them. The walk is scalar Python over the compiled tree's arrays (converted to lists once):
a trajectory touches a handful of nodes, too few for numpy calls to pay. Random numbers come from
``random.Random(seed)``, whose state the checkpoint keeps, so ``load`` resumes bit for bit.

References:

- Lanctot, Waugh, Zinkevich & Bowling (2009), "Monte Carlo Sampling for Regret Minimization in Extensive Games", NIPS.
- Zinkevich, Johanson, Bowling & Piccione (2007), "Regret Minimization in Games with Incomplete Information", NIPS.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np

import seqform.iterative.checkpoint as checkpoint
from seqform.errors import CheckpointError, SeqformError
from seqform.model.game import CHANCE, Game
from seqform.model.limits import check_solver_tables
from seqform.model.strategy import Profile
from seqform.model.tree import Tree, compile_tree

SAMPLINGS = ("external", "outcome", "chance")


def normalised(tree: Tree, tables: list, positive: bool) -> list:
    """Per player, the behavioural strategy (float array per sequence) of a table per sequence:
    its entries (their positive parts when ``positive``: regret matching) normalised over each
    information set, uniform where the set's total is 0."""
    out = []
    for p in range(tree.num_players):
        b = np.ones(tree.num_sequences[p])
        v = np.asarray(tables[p], dtype=float)
        if positive:
            v = np.maximum(v, 0.0)
        if len(tree.player_infosets[p]):
            inf = tree.seq_infoset[p][1:]
            sums = np.bincount(inf, weights=v[1:], minlength=len(tree.infoset_player))
            with np.errstate(invalid="ignore", divide="ignore"):
                b[1:] = np.where(
                    sums[inf] > 0, v[1:] / np.where(sums[inf] > 0, sums[inf], 1.0), 1.0 / tree.infoset_num_actions[inf]
                )
        out.append(b)
    return out


def matching(regrets: list) -> list:
    """Regret matching (Zinkevich et al. 2007, eq. 8): the positive parts of ``regrets``
    normalised, uniform when none is positive."""
    pos = [r if r > 0.0 else 0.0 for r in regrets]
    tot = sum(pos)
    k = len(pos)
    return [r / tot for r in pos] if tot > 0.0 else [1.0 / k] * k


CHECKPOINT_FORMAT = "seqform-mccfr-checkpoint-1"


#: the tables' bytes (``seqform.model.limits.check_solver_tables``): the tree as Python lists (children,
#: players, information sets, leaf values per player), regrets and averages per sequence; measured
#: ~300-340 bytes a node, all included (Leduc 5 ranks, Liar's Dice 1x5, Goofspiel 4)
TABLE_BYTES = {"per_node": 500, "per_sequence": 64}


class MonteCarloCFR:
    """External- or outcome-sampling MCCFR on a game of any number of players (module docstring).

    Parameters
    ----------
    game : Game or Tree
        The game (compiled here when a ``Game``).
    sampling : str
        "external" or "outcome".
    seed : int
        Seed of the random stream (``random.Random``).
    exploration : float
        Outcome sampling's exploration: the update player samples from this mixture of uniform
        and its current strategy (OpenSpiel: 0.6).

    Examples
    --------
    >>> import seqform
    >>> from seqform.iterative.mccfr import MonteCarloCFR
    >>> s = MonteCarloCFR(seqform.games.load("kuhn"), "external", seed=1)
    >>> s.step(2000)
    >>> s.iteration, seqform.exploitability(s.tree, s.average_profile()).exploitability < 0.05
    (2000, True)
    """

    def __init__(
        self,
        game: Game | Tree,
        sampling: str = "external",
        *,
        seed: int = 0,
        exploration: float = 0.6,
        memory_limit_bytes: int | None = None,
    ):
        if sampling not in SAMPLINGS:
            raise SeqformError(f"unknown MCCFR sampling {sampling!r}; choose one of {', '.join(SAMPLINGS)}")
        if not 0 <= exploration <= 1:
            raise SeqformError(f"exploration must lie in [0, 1], got {exploration}")
        tree = game if isinstance(game, Tree) else compile_tree(game, memory_limit_bytes=memory_limit_bytes)
        self.tree = tree
        self.sampling = sampling
        self.algorithm = {"external": "es-mccfr", "outcome": "os-mccfr", "chance": "cs-cfr"}[sampling]
        check_solver_tables(tree, self.algorithm, **TABLE_BYTES, limit_bytes=memory_limit_bytes)
        self.exploration = float(exploration)
        self.seed = seed
        self.rng = random.Random(seed)
        self.iteration = 0
        self.nodes_touched = 0
        N = tree.num_players
        self.num_players = N
        n = len(tree.parent)
        # children of every node, in action order: a CSR over the nodes sorted by (parent, action)
        order = np.lexsort((tree.action[1:], tree.parent[1:])) + 1
        counts = np.bincount(tree.parent[1:], minlength=n)
        first = np.zeros(n, dtype=np.int64)
        first[1:] = np.cumsum(counts)[:-1]
        self._children = order.tolist()
        self._first = first.tolist()
        self._count = counts.tolist()
        self._player = tree.player.tolist()
        self._infoset = tree.infoset.tolist()
        # per chance node: the probabilities of its (present) outcomes, in child order
        self._chance: dict = {}
        for node, probs in zip(tree.chance_nodes.tolist(), tree.chance_probs):
            kids = self._children[self._first[node] : self._first[node] + self._count[node]]
            acts = tree.action[kids].tolist()
            self._chance[node] = [float(probs[a]) for a in acts]
        self._utility = {int(z): tuple(float(u) for u in row) for z, row in zip(tree.terminals.tolist(), tree.payoff)}
        # per node, its children in action order; per player, each node's payoff (None off leaves)
        self._kids = [self._children[a : a + c] for a, c in zip(self._first, self._count)]
        self._leaf_value: list[list[float | None]] = [[None] * n for _ in range(N)]
        for z, u in self._utility.items():
            for p in range(N):
                self._leaf_value[p][z] = u[p]
        self._owner = tree.infoset_player.tolist()
        self._first_seq = tree.infoset_first_seq.tolist()
        self._nact = tree.infoset_num_actions.tolist()
        self.regret = [[0.0] * int(tree.num_sequences[p]) for p in range(N)]
        self.cumulative = [[0.0] * int(tree.num_sequences[p]) for p in range(N)]
        self._root = 0
        # chance sampling's outcome at each chance node this iteration (node -> child index),
        # drawn when first reached and shared by the players' episodes
        self.chance_sample: dict = {}
        # a deep tree recurses once per level
        depth = int(tree.infoset_depth.max()) if len(tree.infoset_depth) else 0
        if sys.getrecursionlimit() < 4 * depth + 1000:
            sys.setrecursionlimit(4 * depth + 1000)

    # --- strategies -------------------------------------------------------------------------

    def current_profile(self) -> Profile:
        """Regret matching on the accumulated regrets: behavioural, shape (num_sequences[p],)."""
        return Profile(normalised(self.tree, self.regret, True))

    def average_profile(self) -> Profile:
        """The average strategy: cumulative strategy normalised, uniform where it is zero."""
        return Profile(normalised(self.tree, self.cumulative, False))

    # --- iterations -------------------------------------------------------------------------

    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` iterations (one episode per update player each)."""
        walk = {"external": self._external_walk, "outcome": self._outcome_walk, "chance": self._chance_walk}[
            self.sampling
        ]()
        touched = 0
        for _ in range(iterations):
            self.chance_sample.clear()
            for i in range(self.num_players):
                touched += walk(i)
            self.iteration += 1
        self.nodes_touched += touched

    # The walks are closures over local names: a trajectory is a handful of nodes, and Python's
    # attribute lookups and method calls were half the time of an iteration. Each walk returns
    # the nodes it touched; the arithmetic and the random draws are those of the plain recursion,
    # in the same order.

    def _sampler(self):
        rand = self.rng.random

        def sample(probs: list) -> int:
            x = rand()
            acc = 0.0
            for j, q in enumerate(probs):
                acc += q
                if x < acc:
                    return j
            return len(probs) - 1  # rounding: the total may fall a hair short of 1

        return sample

    def _external_walk(self):
        player, infoset, chance = self._player, self._infoset, self._chance
        fseq, nact, regret, cumulative = self._first_seq, self._nact, self.regret, self.cumulative
        kids, leaf = self._kids, self._leaf_value
        N, sample = self.num_players, self._sampler()
        touched = 0

        def walk(h: int, i: int, lv: list) -> float:
            # h is not a leaf: leaves are read in place by the caller (a call costs more than a leaf)
            nonlocal touched
            touched += 1
            who = player[h]
            while who == CHANCE:
                h = kids[h][sample(chance[h])]
                touched += 1
                x = lv[h]
                if x is not None:
                    return x
                who = player[h]
            I = infoset[h]
            f, k = fseq[I], nact[I]
            R = regret[who]
            policy = matching(R[f : f + k])
            if who != i:
                c = kids[h][sample(policy)]
                v = lv[c]
                if v is None:
                    v = walk(c, i, lv)
                else:
                    touched += 1
                if who == (i + 1) % N:
                    C = cumulative[who]
                    for j in range(k):
                        C[f + j] += policy[j]
                return v
            vals = []
            v = 0.0
            for c, p in zip(kids[h], policy):
                x = lv[c]
                if x is None:
                    x = walk(c, i, lv)
                else:
                    touched += 1
                vals.append(x)
                v += p * x
            for j in range(k):
                R[f + j] += vals[j] - v
            return v

        def episode(i: int) -> int:
            nonlocal touched
            touched = 0
            lv = leaf[i]
            x = lv[self._root]
            if x is not None:
                return 1
            walk(self._root, i, lv)
            return touched

        return episode

    def _outcome_walk(self):
        player, infoset, chance = self._player, self._infoset, self._chance
        fseq, nact, regret, cumulative = self._first_seq, self._nact, self.regret, self.cumulative
        kids, leaf = self._kids, self._leaf_value
        e, sample = self.exploration, self._sampler()
        touched = 0

        def walk(h: int, i: int, my: float, opp: float, smp: float, lv: list) -> float:
            # h is not a leaf (as in the external walk)
            nonlocal touched
            touched += 1
            who = player[h]
            while who == CHANCE:
                probs = chance[h]
                j = sample(probs)
                opp, smp = probs[j] * opp, probs[j] * smp
                h = kids[h][j]
                touched += 1
                x = lv[h]
                if x is not None:
                    return x
                who = player[h]
            I = infoset[h]
            f, k = fseq[I], nact[I]
            R = regret[who]
            policy = matching(R[f : f + k])
            mine = who == i
            sample_policy = [e / k + (1.0 - e) * q for q in policy] if mine else policy
            a = sample(sample_policy)
            c = kids[h][a]
            child = lv[c]
            if child is not None:
                touched += 1
            elif mine:
                child = walk(c, i, my * policy[a], opp, smp * sample_policy[a], lv)
            else:
                child = walk(c, i, my, opp * policy[a], smp * sample_policy[a], lv)
            corrected = child / sample_policy[a]  # the sampled action's value; the others' are 0
            value = policy[a] * corrected
            if mine:
                C = cumulative[who]
                w = opp / smp
                for j in range(k):
                    R[f + j] += ((corrected if j == a else 0.0) - value) * w
                    C[f + j] += my * policy[j] / smp
            return value

        def episode(i: int) -> int:
            nonlocal touched
            touched = 0
            lv = leaf[i]
            if lv[self._root] is not None:
                return 1
            walk(self._root, i, 1.0, 1.0, 1.0, lv)
            return touched

        return episode

    def _chance_walk(self):
        player, infoset, chance = self._player, self._infoset, self._chance
        fseq, nact, regret, cumulative = self._first_seq, self._nact, self.regret, self.cumulative
        kids, leaf, drawn = self._kids, self._leaf_value, self.chance_sample
        sample = self._sampler()
        touched = 0

        def walk(h: int, i: int, my: float, opp: float, lv: list) -> float:
            # h is not a leaf (as in the external walk). Chance is sampled, so its probability
            # is not in ``opp``: the sampled counterfactual value is unbiased.
            nonlocal touched
            touched += 1
            who = player[h]
            while who == CHANCE:
                j = drawn.get(h)
                if j is None:
                    j = drawn[h] = sample(chance[h])
                h = kids[h][j]
                touched += 1
                x = lv[h]
                if x is not None:
                    return x
                who = player[h]
            I = infoset[h]
            f, k = fseq[I], nact[I]
            R = regret[who]
            policy = matching(R[f : f + k])
            mine = who == i
            vals = []
            v = 0.0
            for c, p in zip(kids[h], policy):
                x = lv[c]
                if x is None:
                    x = walk(c, i, my * p, opp, lv) if mine else walk(c, i, my, opp * p, lv)
                else:
                    touched += 1
                vals.append(x)
                v += p * x
            if mine:
                C = cumulative[who]
                for j in range(k):
                    R[f + j] += opp * (vals[j] - v)
                    C[f + j] += my * policy[j]
            return v

        def episode(i: int) -> int:
            nonlocal touched
            touched = 0
            lv = leaf[i]
            if lv[self._root] is not None:
                return 1
            walk(self._root, i, 1.0, 1.0, lv)
            return touched

        return episode

    # --- checkpoints ------------------------------------------------------------------------

    def save(self, path: str | Path) -> None:
        """Write everything the next iteration depends on (``.npz``): regrets, cumulative
        strategies, counters and the random stream's state."""
        meta = {
            "format": CHECKPOINT_FORMAT,
            "sampling": self.sampling,
            "exploration": self.exploration,
            "seed": self.seed,
            "iteration": self.iteration,
            "nodes_touched": self.nodes_touched,
            "game": self.tree.name,
            "num_sequences": [int(x) for x in self.tree.num_sequences],
            "rng": _rng_to_json(self.rng.getstate()),
        }
        arrays = {
            f"{k}{p}": np.asarray(getattr(self, k)[p])
            for k in ("regret", "cumulative")
            for p in range(self.num_players)
        }
        checkpoint.write(path, meta, arrays)

    @classmethod
    def load(cls, path: str | Path, game: Game | Tree) -> MonteCarloCFR:
        """Resume a run saved by ``save`` on the same game; the next iterations are bit for bit
        those the saved run would have made."""
        meta, arrays = checkpoint.read(path, CHECKPOINT_FORMAT, "MCCFR")
        s = cls(game, meta["sampling"], seed=meta["seed"], exploration=meta["exploration"])
        if [int(x) for x in s.tree.num_sequences] != meta["num_sequences"]:
            raise CheckpointError(f"{path}: saved for {meta['game']!r}, whose sequences do not match {s.tree.name!r}")
        for k in ("regret", "cumulative"):
            setattr(s, k, [arrays[f"{k}{p}"].tolist() for p in range(s.num_players)])
        s.iteration, s.nodes_touched = meta["iteration"], meta["nodes_touched"]
        s.rng.setstate(_rng_from_json(meta["rng"]))
        return s


def _rng_to_json(state: tuple):
    version, internal, gauss = state
    return [version, list(internal), gauss]


def _rng_from_json(obj) -> tuple:
    version, internal, gauss = obj
    return (version, tuple(internal), gauss)


__all__ = ["MonteCarloCFR", "SAMPLINGS", "CheckpointError"]

"""Counterfactual regret minimisation over the sequence form: CFR (Zinkevich et al. 2007), CFR+, discounted
CFR and chance-sampled CFR, vectorised over a compiled ``Tree``, for any number of players.

One update of player p against the other players q:

1. ``x_q``: each other player's realization plan of its current strategy (one top-down pass over q's
   levels);
2. ``g``: p's sequence payoffs, chance and the others' reach included,
   ``g[s] = sum over the leaves z with seq_p(z) = s of chance(z) u_p(z) prod_{q != p} x_q[seq_q(z)]``.
   Two players: one sparse product ``g = A_p x_q`` (a leaf z adds chance(z) u_p(z) to
   ``A_p[seq_p(z), seq_q(z)]``). More players: the leaves are grouped by the tuple of the others'
   sequences (one column of ``A_p`` per tuple present, the leaves of a column summed once, when
   built); each column's weight is the product of the others' plans gathered at its tuple, and one
   sparse product ``A_p`` times those weights gives ``g``;
3. one bottom-up pass over p's information sets, deepest first: the counterfactual value of a
   sequence (I, a) is V(I, a) = g[(I, a)] + sum over the information sets J right below it of
   V(J), with V(J) = sum_b b(J, b) V(J, b) under p's current strategy b (Zinkevich et al. 2007, eq. 5: the
   counterfactual value is the value weighted by the others' reach, which ``g`` carries);
4. instantaneous regrets V(I, a) - V(I) are accumulated (Zinkevich et al. 2007, eq. 7), and p's new current
   strategy is regret matching on them (Zinkevich et al. 2007, eq. 8): positive parts normalised, uniform when
   none is positive;
5. the average strategy accumulates p's own realization plan ``x_p`` of the strategy used
   (Zinkevich et al. 2007, eq. 4: the average weighted by p's own reach), normalised per information set on demand.

Variants, with OpenSpiel's definitions so that iterates agree with its solvers (tests):

* ``"cfr"``: regret matching, alternating updates (players 0, 1, ..., N-1 in turn, each against the
  others' newest strategies, as OpenSpiel's solvers do for any number of players), uniform
  averaging (OpenSpiel's ``CFRSolver``);
* ``"cfr+"``: regret matching+ (accumulated regrets clipped at 0), alternating updates, the
  average weighted by the iteration number t (``CFRPlusSolver``);
* ``"dcfr"``: discounted CFR (Brown & Sandholm 2019): after each update, positive accumulated
  regrets times t^alpha / (t^alpha + 1), negative ones times t^beta / (t^beta + 1), average
  contributions weighted by t^gamma; alpha=3/2, beta=0, gamma=2 by default (``DCFRSolver``);
* ``"lcfr"``: linear CFR (Brown & Sandholm 2019): discounted CFR with alpha = beta = gamma = 1
  (OpenSpiel's ``DCFRSolver(game, 1, 1, 1)``);
* ``"cfr-simultaneous"``: vanilla CFR as Zinkevich et al. (2007) state it: every player updates
  on the same iteration's strategies (OpenSpiel's ``_CFRSolver`` with ``alternating_updates=False``);
  uniform averaging;
* ``"pcfr+"``: predictive CFR+ (Farina, Kroer & Sandholm 2021): predictive regret matching+ at
  every information set (R clipped at 0 as in CFR+); the prediction of the next payoffs is the
  last observed one, pushed through the tree bottom-up with the new strategies below (the
  laminar regret decomposition); alternating updates; quadratic averaging (weights t^2), as the
  paper's experiments use;
* ``"cfr+-delay"``: CFR+ whose average starts after ``delay`` iterations (weights max(t - delay, 0);
  Tammelin, Burch, Johanson & Bowling 2015); ``delay`` defaults to 100;
``traversals`` counts passes over the leaves (one per player update, N per iteration), the
unit of Kroer, Farina & Sandholm (2017)'s plots.

With more than two players the average strategies need not converge to a Nash equilibrium (regret
minimisation reaches the coarse correlated equilibria); what they reach is measured by NashConv
(``seqform.verify.exploitability``, ``seqform.evaluate``), not against a game value.

References:

- Zinkevich, Johanson, Bowling & Piccione (2007), "Regret Minimization in Games with Incomplete Information", NIPS.
- Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI.
- Brown & Sandholm (2019), "Solving Imperfect-Information Games via Discounted Regret Minimization", AAAI.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

import seqform.iterative.checkpoint as checkpoint
from seqform.errors import CheckpointError, SeqformError, UnsupportedGameError
from seqform.model.game import Game
from seqform.model.limits import check_solver_tables
from seqform.model.strategy import Profile
from seqform.model.tree import Tree, compile_tree

ALGORITHMS = ("cfr", "cfr+", "dcfr", "lcfr", "cfr-simultaneous", "pcfr+", "cfr+-delay")


#: the tables' bytes (``seqform.model.limits.check_solver_tables``): regrets, predictions, averages
#: and the current strategy per sequence, the payoff matrix (built from the leaves) per leaf;
#: measured ~180-250 bytes a sequence and ~40 a leaf, all included (Leduc 5 ranks, Liar's Dice 1x5).
#: Two players; with N > 2 a leaf costs ``PER_TERMINAL_PLAYER`` per player (``table_bytes``)
TABLE_BYTES = {"per_sequence": 320, "per_terminal": 64}

#: N > 2 players, bytes a leaf per player: one entry of each player's matrix (value, column index)
#: and the others' sequences per column, and while a matrix is built the leaves' keys, their sort
#: and the COO triplets; measured ~16 bytes a leaf per player kept and ~37 at the build's peak
#: (``leduc_poker(players=3)`` through OpenSpiel: 1,043,952 leaves, 175,728 columns per player)
PER_TERMINAL_PLAYER = 64


def table_bytes(num_players: int) -> dict:
    """``check_solver_tables``'s per-sequence and per-leaf bytes for a game of ``num_players``."""
    if num_players <= 2:
        return TABLE_BYTES
    return {"per_sequence": TABLE_BYTES["per_sequence"], "per_terminal": PER_TERMINAL_PLAYER * num_players}


@dataclass
class _Player:
    """Per-player arrays: ``A`` the payoff matrix (two players: n_p x n_q; more: n_p x the tuples
    of the others' sequences at the leaves, whose sequences ``columns[q]`` gives, one array per
    other player q in order), the level schedule, and the flat information-set layout of sequences
    1..n_p-1 (``starts``/``counts`` for ``reduceat``)."""

    A: sp.csr_matrix
    others: list  # the other players, in order
    columns: list  # N > 2: per other player, its sequence at each column of A
    levels: list  # deepest first: (seqs, starts, rep, parents)
    starts: np.ndarray
    counts: np.ndarray
    rep: np.ndarray  # position -> information-set index, for sequences 1..n_p-1 in order
    n: int


class RegretMinimizer:
    """A CFR-family solver on a game of any number of players (module docstring).

    ``game``: a ``Game`` (compiled here) or a ``Tree``. ``algorithm``: one of ``ALGORITHMS``.
    ``alpha``, ``beta``, ``gamma``: discounted CFR's parameters. ``delay``: CFR+ with an averaging
    delay's. Chance-sampled CFR is ``seqform.iterative.mccfr.MonteCarloCFR(game, "chance")``.
    ``memory_limit_bytes`` (default ``seqform.model.limits.memory_limit()``): the tree and the
    tables must fit in it, else ``TooLargeError`` before they are allocated.

    ``step(n)`` runs n iterations; ``iteration``, ``traversals``; ``current_profile()`` and
    ``average_profile()`` are behavioural ``Profile`` s (float arrays, shape (num_sequences[p],));
    ``save(path)`` / ``RegretMinimizer.load(path, game)`` checkpoint and resume the same algorithm
    bit for bit.

    A subclass runs on games of other than two players only if it sets ``ANY_NUMBER_OF_PLAYERS = True``
    in its own body (its updates may assume one opponent); otherwise ``UnsupportedGameError``."""

    #: this class's updates hold for any number of players (read from each class's own body)
    ANY_NUMBER_OF_PLAYERS = True

    def __init__(
        self,
        game: Game | Tree,
        algorithm: str = "cfr",
        *,
        alpha: float = 1.5,
        beta: float = 0.0,
        gamma: float = 2.0,
        delay: int = 100,
        memory_limit_bytes: int | None = None,
    ):
        if algorithm not in ALGORITHMS:
            raise SeqformError(
                f"unknown regret-minimisation algorithm {algorithm!r}; choose one of {', '.join(ALGORITHMS)}"
            )
        tree = game if isinstance(game, Tree) else compile_tree(game, memory_limit_bytes=memory_limit_bytes)
        if tree.num_players != 2 and not vars(type(self)).get("ANY_NUMBER_OF_PLAYERS", False):
            # a subclass's own updates may assume one opponent: it says it does not
            raise UnsupportedGameError(
                f"{tree.name!r} has {tree.num_players} players; {type(self).__name__} is for two-player games"
            )
        check_solver_tables(tree, algorithm.upper(), **table_bytes(tree.num_players), limit_bytes=memory_limit_bytes)
        self.tree, self.algorithm = tree, algorithm
        if algorithm == "lcfr":  # linear CFR is discounted CFR with alpha = beta = gamma = 1
            alpha = beta = gamma = 1.0
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        self.delay = int(delay)
        self.iteration = 0
        self.traversals = 0
        self.num_players = N = int(tree.num_players)
        self._players = [self._layout(p) for p in range(N)]
        n = tree.num_sequences
        self.regret = [np.zeros(n[p] - 1) for p in range(N)]
        # predictive CFR+'s prediction: the last observed sequence payoffs
        self.prediction = [np.zeros(n[p]) for p in range(N)]
        self.cumulative = [np.zeros(n[p]) for p in range(N)]
        self.behaviour = [self._matching(p) for p in range(N)]

    # ----- layout -------------------------------------------------------------------------
    def _layout(self, p: int) -> _Player:
        tree = self.tree
        n = tree.num_sequences
        others = [q for q in range(tree.num_players) if q != p]
        columns: list = []
        if len(others) <= 1:  # one column per sequence of the opponent (one player: a single column)
            t = tree.terminals
            w = tree.terminal_chance * tree.payoff[:, p]
            col, width = (tree.node_seq[others[0], t], n[others[0]]) if others else (np.zeros(len(t), int), 1)
            A = sp.csr_matrix((w, (tree.node_seq[p, t], col)), shape=(n[p], width))
            A.sum_duplicates()
        else:
            A, columns = _others_matrix(tree, p, others)
        levels = []
        for lvl, seqs, starts, parents in tree.levels[p]:
            nact = tree.infoset_num_actions[lvl]
            levels.append((seqs, starts, np.repeat(np.arange(len(lvl)), nact), parents))
        ids = tree.player_infosets[p]
        order = np.argsort(tree.infoset_first_seq[ids], kind="stable")
        first = tree.infoset_first_seq[ids][order]
        counts = tree.infoset_num_actions[ids][order]
        starts = first - 1
        if len(ids) and not np.array_equal(np.concatenate((starts[1:], [n[p] - 1])), starts + counts):
            raise SeqformError("internal: a player's sequences are not laid out by information set")
        rep = np.repeat(np.arange(len(ids)), counts)
        return _Player(A, others, columns, levels, starts, counts, rep, n[p])

    # ----- one iteration ------------------------------------------------------------------
    def _matching(self, p: int) -> np.ndarray:
        """Regret matching on player p's accumulated regrets: behaviour, shape (n_p,)."""
        L = self._players[p]
        b = np.empty(L.n)
        b[0] = 1.0
        if L.n == 1:
            return b
        pos = np.maximum(self.regret[p], 0.0)
        tot = np.add.reduceat(pos, L.starts)[L.rep]
        with np.errstate(invalid="ignore", divide="ignore"):
            b[1:] = np.where(tot > 0, pos / tot, 1.0 / L.counts[L.rep])
        return b

    def _predictive_matching(self, p: int, m: np.ndarray) -> np.ndarray:
        """Predictive regret matching+ at every information set, bottom-up (Farina, Kroer &
        Sandholm 2021): the prediction of the next sequence payoffs is the last observed ``m``;
        an information set's predicted utilities add the values of the sets below under their
        *new* strategies, and its strategy is regret matching on ``[R + m_I - <m_I, x_I>]^+``, x_I
        the strategy just played."""
        L = self._players[p]
        old = self.behaviour[p]
        b = np.empty(L.n)
        b[0] = 1.0
        below = np.zeros(L.n)
        R = self.regret[p]
        for seqs, starts, rep, parents in L.levels:
            vals = m[seqs] + below[seqs]
            pred = vals - np.add.reduceat(old[seqs] * vals, starts)[rep]
            pos = np.maximum(R[seqs - 1] + pred, 0.0)
            tot = np.add.reduceat(pos, starts)[rep]
            nact = np.add.reduceat(np.ones(len(seqs)), starts)[rep]
            with np.errstate(invalid="ignore", divide="ignore"):
                b[seqs] = np.where(tot > 0, pos / tot, 1.0 / nact)
            below += np.bincount(parents, weights=np.add.reduceat(b[seqs] * vals, starts), minlength=L.n)
        return b

    def _realization(self, p: int, b: np.ndarray) -> np.ndarray:
        x = np.empty(len(b))
        x[0] = 1.0
        for seqs, _starts, rep, parents in reversed(self._players[p].levels):
            x[seqs] = b[seqs] * x[parents][rep]
        return x

    def _update(self, p: int, g: np.ndarray) -> None:
        """Steps 3-5 of the module docstring for player p, given its sequence payoffs g."""
        L = self._players[p]
        b = self.behaviour[p]
        below = np.zeros(L.n)
        inst = np.empty(L.n)
        for seqs, starts, rep, parents in L.levels:
            vals = g[seqs] + below[seqs]
            vI = np.add.reduceat(b[seqs] * vals, starts)
            inst[seqs] = vals - vI[rep]
            below += np.bincount(parents, weights=vI, minlength=L.n)
        t = self.iteration
        R = self.regret[p]
        R += inst[1:]
        if self.algorithm in ("cfr+", "pcfr+", "cfr+-delay"):
            np.maximum(R, 0.0, out=R)

        elif self.algorithm in ("dcfr", "lcfr"):
            ta, tb = t**self.alpha, t**self.beta
            R *= np.where(R >= 0, ta / (ta + 1), tb / (tb + 1))
        weight = {
            "cfr+": float(t),
            "dcfr": float(t) ** self.gamma,
            "lcfr": float(t) ** self.gamma,
            "pcfr+": float(t) ** 2,
            "cfr+-delay": float(max(t - self.delay, 0)),
        }.get(self.algorithm, 1.0)
        self.cumulative[p] += weight * self._realization(p, b)
        if self.algorithm == "pcfr+":
            self.prediction[p] = g.copy()
            self.behaviour[p] = self._predictive_matching(p, g)
        else:
            self.behaviour[p] = self._matching(p)
        self.traversals += 1

    def _payoffs(self, p: int, plans: list) -> np.ndarray:
        """Player p's sequence payoffs (step 2 of the module docstring) given every player's
        realization plan (``plans[p]`` is not read)."""
        L = self._players[p]
        if not L.columns:  # two players (one player: no one else to weigh the leaves)
            return L.A @ plans[L.others[0]] if L.others else L.A @ np.ones(L.A.shape[1])
        weight = plans[L.others[0]][L.columns[0]]
        for q, cols in zip(L.others[1:], L.columns[1:]):
            weight *= plans[q][cols]
        return L.A @ weight

    def step(self, iterations: int = 1) -> None:
        """Run ``iterations`` iterations (module docstring)."""
        N = self.num_players
        for _ in range(int(iterations)):
            self.iteration += 1
            if self.algorithm == "cfr-simultaneous":  # all against the others' strategies of this iteration
                plans: list = [self._realization(q, self.behaviour[q]) for q in range(N)]
                gs = [self._payoffs(p, plans) for p in range(N)]
                for p in range(N):
                    self._update(p, gs[p])
                continue
            if N == 2:  # the two-player path as it always was: one sparse product, no plan list
                for p in (0, 1):
                    self._update(p, self._players[p].A @ self._realization(1 - p, self.behaviour[1 - p]))
                continue
            for p in range(N):  # in turn, each against the others' newest strategies
                plans = [None if q == p else self._realization(q, self.behaviour[q]) for q in range(N)]
                self._update(p, self._payoffs(p, plans))

    # ----- strategies ---------------------------------------------------------------------
    def current_profile(self) -> Profile:
        """The current strategies (those the next iteration plays), as a behavioural profile."""
        return Profile([b.copy() for b in self.behaviour])

    def average_profile(self) -> Profile:
        """The average strategies: the accumulated realization weights normalised per information
        set (uniform where nothing was accumulated)."""
        out = []
        for p in range(self.num_players):
            L = self._players[p]
            S = self.cumulative[p]
            b = np.empty(L.n)
            b[0] = 1.0
            if L.n > 1:
                tot = np.add.reduceat(S[1:], L.starts)[L.rep]
                with np.errstate(invalid="ignore", divide="ignore"):
                    b[1:] = np.where(tot > 0, S[1:] / tot, 1.0 / L.counts[L.rep])
            out.append(b)
        return Profile(out)

    # ----- checkpoints --------------------------------------------------------------------
    def _meta(self) -> dict:
        return {
            "format": "seqform-regret-checkpoint-1",
            "algorithm": self.algorithm,
            "alpha": self.alpha,
            "beta": self.beta,
            "gamma": self.gamma,
            "delay": self.delay,
            "iteration": self.iteration,
            "traversals": self.traversals,
            "game": self.tree.name,
            "num_sequences": [int(n) for n in self.tree.num_sequences],
        }

    def save(self, path: str | Path) -> None:
        """Write everything the next iteration depends on (``.npz``): regrets, cumulative and
        current strategies, the iteration, the algorithm and its parameters."""
        arrays = {
            f"{k}{p}": getattr(self, k)[p]
            for k in ("regret", "prediction", "cumulative", "behaviour")
            for p in range(self.num_players)
        }
        checkpoint.write(path, self._meta(), arrays)

    @classmethod
    def _from_meta(cls, game: Game | Tree, meta: dict) -> RegretMinimizer:
        """A fresh solver with the algorithm and parameters a checkpoint's ``meta`` records
        (subclasses with parameters of their own override this and ``_meta``)."""
        return cls(
            game,
            meta["algorithm"],
            alpha=meta["alpha"],
            beta=meta["beta"],
            gamma=meta["gamma"],
            delay=meta.get("delay", 100),
        )

    @classmethod
    def load(cls, path: str | Path, game: Game | Tree, algorithm: str | None = None) -> RegretMinimizer:
        """Resume the solver saved at ``path`` on ``game``: the same algorithm and parameters (the
        file's; ``algorithm``, when given, must match it: ``CheckpointError`` otherwise)."""
        meta, arrays = checkpoint.read(path, "seqform-regret-checkpoint-1", "regret")
        if algorithm is not None and algorithm != meta["algorithm"]:
            raise CheckpointError(f"{path} holds a {meta['algorithm']!r} run; it cannot resume as {algorithm!r}")
        solver = cls._from_meta(game, meta)
        if [int(n) for n in solver.tree.num_sequences] != meta["num_sequences"]:
            raise CheckpointError(
                f"{path} was saved on {meta['game']!r} with {meta['num_sequences']} sequences; "
                f"{solver.tree.name!r} has {list(solver.tree.num_sequences)}"
            )
        for k in ("regret", "prediction", "cumulative", "behaviour"):
            if f"{k}0" in arrays:  # checkpoints from before predictive CFR+ have no prediction
                getattr(solver, k)[:] = [arrays[f"{k}{p}"] for p in range(solver.num_players)]
        solver.iteration, solver.traversals = meta["iteration"], meta["traversals"]
        return solver


def _others_matrix(tree: Tree, p: int, others: list) -> tuple[sp.csr_matrix, list]:
    """Player p's payoff matrix against two or more others: one column per tuple of the others'
    sequences found at a leaf, ``A[seq_p(z), column(z)]`` the sum of chance(z) u_p(z) over the
    leaves z of that column and row; and per other player its sequence at each column. Leaves
    where p's payoff is 0 are left out."""
    t = tree.terminals
    w = tree.terminal_chance * tree.payoff[:, p]
    keep = w != 0
    t, w = t[keep], w[keep]
    seqs = tree.node_seq[others][:, t].astype(np.int64)
    sizes = [int(tree.num_sequences[q]) for q in others]
    if float(np.prod(np.asarray(sizes, dtype=float))) < 2.0**62:  # a tuple's index fits in an int64
        key = np.ravel_multi_index(tuple(seqs), sizes)
        uniq, column = np.unique(key, return_inverse=True)
        columns = [c.astype(np.int64) for c in np.unravel_index(uniq, sizes)]
    else:
        uniq_rows, column = np.unique(seqs.T, axis=0, return_inverse=True)
        columns = [np.ascontiguousarray(uniq_rows[:, i]) for i in range(len(others))]
    column = np.asarray(column).reshape(-1)
    shape = (int(tree.num_sequences[p]), len(columns[0]))
    A = sp.csr_matrix((w, (tree.node_seq[p, t], column)), shape=shape)
    A.sum_duplicates()
    return A, columns


def cfr(game: Game | Tree, iterations: int, algorithm: str = "cfr", **kw) -> RegretMinimizer:
    """Run ``iterations`` of ``algorithm`` on ``game`` and return the solver."""
    s = RegretMinimizer(game, algorithm, **kw)
    s.step(iterations)
    return s


__all__ = ["RegretMinimizer", "ALGORITHMS", "CheckpointError", "cfr"]

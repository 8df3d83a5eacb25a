"""Predictive CFR+ written independently of seqform's vectorised solver, for the tests (Farina,
Kroer & Sandholm 2021, "Faster Game Solving via Predictive Blackwell Approachability: Connecting
Regret Matching and Mirror Descent"). Plain dictionaries over the ``Game`` interface: the leaves
are enumerated once, sequences are tuples of (information-set key, action) pairs, information
sets are processed deepest first by the length of their parent sequence.

Per player p, alternating (player 0, then player 1 against player 0's new strategy):
1. g[s] = sum over leaves with p's sequence s of chance * x_q(q's sequence) * u_p;
2. counterfactual values bottom-up under the strategy played; instantaneous regrets; R = [R + r]^+;
3. the average: t^2 times p's own realization of the strategy played;
4. the next strategy: predictive regret matching+ with the prediction g (the payoffs just
   observed), pushed bottom-up with the new strategies of the sets below:
   sigma_I proportional to [R_I + m_I - <m_I, sigma_I played>]^+ (uniform when all zero).
Two-player games only."""

from fractions import Fraction

from seqform.model.game import CHANCE, TERMINAL


class PredictiveCFRPlus:
    def __init__(self, game):
        self.game = game
        self.leaves = []  # (chance, (seq0, seq1), utilities)
        self.infosets = [{}, {}]  # key -> (parent sequence, number of actions)
        self._collect(game.root(), 1.0, [(), ()])
        self.sigma = [{k: [1.0 / n] * n for k, (_, n) in self.infosets[p].items()} for p in (0, 1)]
        self.R = [{k: [0.0] * n for k, (_, n) in self.infosets[p].items()} for p in (0, 1)]
        self.avg = [{k: [0.0] * n for k, (_, n) in self.infosets[p].items()} for p in (0, 1)]
        # deepest first: the longer the parent sequence, the deeper the set (perfect recall)
        self.order = [sorted(self.infosets[p], key=lambda k, p=p: -len(self.infosets[p][k][0])) for p in (0, 1)]
        self.t = 0

    def _collect(self, h, chance, seqs):
        g = self.game
        who = g.player(h)
        if who == TERMINAL:
            self.leaves.append((chance, (seqs[0], seqs[1]), [float(u) for u in g.utility(h)]))
            return
        if who == CHANCE:
            for a, q in enumerate(g.chance(h)):
                if q:
                    self._collect(g.next(h, a), chance * float(Fraction(q)), seqs)
            return
        key, n = g.infoset(h), len(g.actions(h))
        self.infosets[who].setdefault(key, (seqs[who], n))
        for a in range(n):
            nxt = list(seqs)
            nxt[who] = seqs[who] + ((key, a),)
            self._collect(g.next(h, a), chance, nxt)

    def _reach(self, p, seq):
        x = 1.0
        for key, a in seq:
            x *= self.sigma[p][key][a]
        return x

    def _values(self, p, g, strategy):
        """Per information set, its action values (g plus the sets below under ``strategy``),
        deepest first; returns {key: values} and {key: value under ``strategy``}."""
        below, vals, value = {}, {}, {}
        for key in self.order[p]:
            parent, n = self.infosets[p][key]
            v = [g.get(parent + ((key, a),), 0.0) + below.get(parent + ((key, a),), 0.0) for a in range(n)]
            vals[key] = v
            value[key] = sum(s * x for s, x in zip(strategy(key, v), v))
            below[parent] = below.get(parent, 0.0) + value[key]
        return vals, value

    def step(self):
        self.t += 1
        for p in (0, 1):
            q = 1 - p
            g = {}
            for chance, seqs, u in self.leaves:
                w = chance * self._reach(q, seqs[q]) * u[p]
                g[seqs[p]] = g.get(seqs[p], 0.0) + w
            played = {k: list(v) for k, v in self.sigma[p].items()}
            vals, value = self._values(p, g, lambda key, v: played[key])
            for key, v in vals.items():
                self.R[p][key] = [max(r + x - value[key], 0.0) for r, x in zip(self.R[p][key], v)]
                parent, _ = self.infosets[p][key]
                own = self._reach(p, parent)
                self.avg[p][key] = [c + self.t**2 * own * s for c, s in zip(self.avg[p][key], played[key])]
            new = {}

            def predictive(key, v):
                pred = [x - sum(s * y for s, y in zip(played[key], v)) for x in v]
                pos = [max(r + d, 0.0) for r, d in zip(self.R[p][key], pred)]
                tot = sum(pos)
                new[key] = [x / tot for x in pos] if tot > 0 else [1.0 / len(v)] * len(v)
                return new[key]

            self._values(p, g, predictive)
            self.sigma[p] = new

    def average(self, p, key, n):
        A = self.avg[p][key]
        s = sum(A)
        return [x / s for x in A] if s > 0 else [1.0 / n] * n

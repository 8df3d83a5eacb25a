"""External- and outcome-sampling MCCFR written as plainly as possible, for the tests: one
recursive function per sampling scheme over the compiled tree, OpenSpiel's definitions
(``seqform.iterative.mccfr``'s module docstring), no inlining of leaves or chance. Random draws
are made in the same order as the library's walks, so the same seed gives the same run, bit for
bit; the test compares the two."""

from __future__ import annotations

import random

from seqform.model.game import CHANCE, TERMINAL


class PlainMCCFR:
    def __init__(self, tree, sampling: str, seed: int, exploration: float = 0.6):
        self.tree, self.sampling, self.exploration = tree, sampling, exploration
        self.rng = random.Random(seed)
        self.N = tree.num_players
        self.kids = {}
        for v in range(1, tree.num_nodes):
            self.kids.setdefault(int(tree.parent[v]), []).append((int(tree.action[v]), v))
        self.kids = {u: [v for _, v in sorted(ks)] for u, ks in self.kids.items()}
        self.chance = {int(c): [float(p) for p in probs] for c, probs in zip(tree.chance_nodes, tree.chance_probs)}
        self.util = {int(z): [float(x) for x in row] for z, row in zip(tree.terminals, tree.payoff)}
        self.regret = [[0.0] * int(n) for n in tree.num_sequences]
        self.cumulative = [[0.0] * int(n) for n in tree.num_sequences]
        self.nodes_touched = 0

    def policy(self, p, I):
        f, k = int(self.tree.infoset_first_seq[I]), int(self.tree.infoset_num_actions[I])
        pos = [max(r, 0.0) for r in self.regret[p][f : f + k]]
        tot = sum(pos)
        return f, k, ([r / tot for r in pos] if tot > 0 else [1.0 / k] * k)

    def sample(self, probs):
        x, acc = self.rng.random(), 0.0
        for j, q in enumerate(probs):
            acc += q
            if x < acc:
                return j
        return len(probs) - 1

    def step(self, iterations):
        for _ in range(iterations):
            for i in range(self.N):
                if self.sampling == "external":
                    self.external(0, i)
                else:
                    self.outcome(0, i, 1.0, 1.0, 1.0)

    def external(self, h, i):
        self.nodes_touched += 1
        who = int(self.tree.player[h])
        if who == TERMINAL:
            return self.util[h][i]
        if who == CHANCE:
            return self.external(self.kids[h][self.sample(self.chance[h])], i)
        f, k, pol = self.policy(who, int(self.tree.infoset[h]))
        if who != i:
            v = self.external(self.kids[h][self.sample(pol)], i)
            if who == (i + 1) % self.N:
                for j in range(k):
                    self.cumulative[who][f + j] += pol[j]
            return v
        vals = [self.external(c, i) for c in self.kids[h]]
        v = 0.0
        for p, x in zip(pol, vals):
            v += p * x
        for j in range(k):
            self.regret[who][f + j] += vals[j] - v
        return v

    def outcome(self, h, i, my, opp, smp):
        self.nodes_touched += 1
        who = int(self.tree.player[h])
        if who == TERMINAL:
            return self.util[h][i]
        if who == CHANCE:
            probs = self.chance[h]
            j = self.sample(probs)
            return self.outcome(self.kids[h][j], i, my, probs[j] * opp, probs[j] * smp)
        f, k, pol = self.policy(who, int(self.tree.infoset[h]))
        e = self.exploration
        spol = [e / k + (1 - e) * q for q in pol] if who == i else pol
        a = self.sample(spol)
        if who == i:
            child = self.outcome(self.kids[h][a], i, my * pol[a], opp, smp * spol[a])
        else:
            child = self.outcome(self.kids[h][a], i, my, opp * pol[a], smp * spol[a])
        corrected = child / spol[a]
        value = pol[a] * corrected
        if who == i:
            w = opp / smp
            for j in range(k):
                self.regret[who][f + j] += ((corrected if j == a else 0.0) - value) * w
                self.cumulative[who][f + j] += my * pol[j] / smp
        return value

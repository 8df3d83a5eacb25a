"""Define your own game through the succinct interface and solve it exactly.

One-card poker with a biased deck: each player antes 1 and is dealt a card from {J, Q, K} with
the deck weighted 1:1:2 (an exact Fraction per outcome). Then Kuhn poker's betting: player 0
checks or bets 1; after a check player 1 checks or bets; a bet is folded or called. Higher card
wins the pot. With so many kings, bluffing does not pay: the value is 1/6, what checking every
hand down gives (player 0 wins the showdown with probability 7/12: P(K) = 1/2, plus
P(Q) * P(J | Q) = 1/12). The game has many equilibria (how often a king bets is not pinned down),
and which one the LP returns depends on the HiGHS version, so the script prints the one it got and
checks only what every equilibrium shares: that value, computed independently below by enumerating
the deals, and an exact exploitability of zero.

Run: python examples/custom_game.py
"""

from fractions import Fraction

import seqform
from seqform import CHANCE, TERMINAL, Game

CARDS = ("J", "Q", "K")
WEIGHT = {"J": 1, "Q": 1, "K": 2}


class BiasedPoker(Game):
    name = "biased_poker"
    num_players = 2

    # a state is (cards dealt, betting history)
    def root(self):
        return ((), "")

    def player(self, h):
        cards, hist = h
        if len(cards) < 2:
            return CHANCE
        if hist in ("cc", "cbf", "cbc", "bf", "bc"):
            return TERMINAL
        return len(hist) % 2

    def infoset(self, h):
        cards, hist = h
        return (cards[len(hist) % 2], hist)  # own card and the public history

    def actions(self, h):
        cards, hist = h
        if len(cards) < 2:
            return tuple(c for c in CARDS if c not in cards)
        return ("fold", "call") if hist.endswith("b") else ("check", "bet")

    def chance(self, h):
        left = [c for c in CARDS if c not in h[0]]
        total = sum(WEIGHT[c] for c in left)
        return tuple(Fraction(WEIGHT[c], total) for c in left)

    def next(self, h, a):
        cards, hist = h
        if len(cards) < 2:
            return (cards + (self.actions(h)[a],), hist)
        return (cards, hist + self.actions(h)[a][0])

    def utility(self, h):
        cards, hist = h
        if hist.endswith("f"):
            folder = (len(hist) - 1) % 2
            return (-1, 1) if folder == 0 else (1, -1)
        stake = 2 if hist.endswith("bc") else 1
        win = stake if CARDS.index(cards[0]) > CARDS.index(cards[1]) else -stake
        return (win, -win)


def check_down_value(game: BiasedPoker) -> Fraction:
    """Player 0's expected payoff when both players always check: the showdown over every deal."""
    total = Fraction(0)
    h = game.root()
    for i, p0 in enumerate(game.chance(h)):
        h1 = game.next(h, i)
        for j, p1 in enumerate(game.chance(h1)):
            total += p0 * p1 * game.utility(game.next(game.next(game.next(h1, j), 0), 0))[0]
    return total


game = BiasedPoker()
sol = seqform.solve(game)
ev = seqform.evaluate(sol.tree, sol.exact_profile)
assert sol.certified and sol.value == check_down_value(game) == Fraction(1, 6)
assert ev.nash_conv == 0  # both exact best responses gain nothing
print(f"value for player 0: {sol.value} (certified: {sol.certified}; equals the check-down value)")
for p in range(2):
    for i in sol.tree.player_infosets[p]:
        probs = sol.profile.action_probabilities(sol.tree, i)
        print(
            f"  player {p} at {sol.tree.infoset_key[i]}: "
            + ", ".join(f"{a} {q:.3f}" for a, q in zip(sol.tree.infoset_actions[i], probs))
        )

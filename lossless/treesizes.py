"""Sizes of a game with ordered signals, counted without building it: its tree's nodes and its
sequence form's information sets, sequences and LP rows and columns (see ``lossless.sizes`` for
the formulas and for the abstraction's sizes). Depends on the betting tree alone, so the game
itself (``lossless.orderedsignals``) can count its nodes without importing GameShrink."""

from __future__ import annotations

import math

from .betting import DECIDE, FOLD, NEXT, SHOWDOWN


def sequence_form_sizes(betting, per_round: list) -> dict:
    """Information sets and sequences per player, and the LP's rows and columns, when player i has
    ``per_round[i][r]`` observations (or classes) during round r's betting."""
    n = betting.num_players
    infosets, sequences = [0] * n, [1] * n
    for v in range(betting.num_nodes):
        if betting.kind[v] == DECIDE:
            i, r = betting.player[v], betting.round[v]
            infosets[i] += per_round[i][r]
            sequences[i] += len(betting.actions[v]) * per_round[i][r]
    out: dict[str, list[int] | int] = {"infosets": infosets, "sequences": sequences}
    if n == 2:
        out["lp_rows"] = sequences[0] + infosets[1] + 1
        out["lp_columns"] = sequences[1] + infosets[0] + 1
    return out


def game_tree_nodes(game, per_level: list | None = None) -> int:
    """Nodes of the game tree (as ``seqform.compile_tree`` counts them) without building it, from
    the number of signal-tree nodes at each level (default: the original game's, D!/(D-k)!).

    Round r's betting nodes (all but the round ends, which the game skips) occur once per
    signal node after round r's deals; the chance nodes dealing round r's cards occur once per
    way into round r (the root, or a round end of round r-1) and signal node before each card."""
    bet = game.betting
    if per_level is None:
        per_level = [math.perm(len(game.deck), k) for k in range(len(game.levels) + 1)]
    total = 0
    for r in range(bet.num_rounds):
        start = game.dealt_by[r - 1] if r else 0
        entries = 1 if r == 0 else len(bet.nodes_of_round(r - 1, NEXT))
        total += entries * sum(per_level[start : game.dealt_by[r]])
        betting_nodes = len(bet.nodes_of_round(r, DECIDE, FOLD, SHOWDOWN))
        total += betting_nodes * per_level[game.dealt_by[r]]
    return total


def _suit_orbits(ranks: int, suits: int, k: int) -> int:
    """Orbits of the ordered deals of k distinct cards from a ranks x suits deck under the
    permutations of the suits (Burnside: a permutation fixing j suits fixes perm(ranks*j, k)
    deals, and C(suits, j) * derangements(suits - j) permutations fix exactly j suits)."""
    derangements = [1, 0]
    for n in range(2, suits + 1):
        derangements.append((n - 1) * (derangements[-1] + derangements[-2]))
    fixed = sum(math.comb(suits, j) * derangements[suits - j] * math.perm(ranks * j, k) for j in range(suits + 1))
    return fixed // math.factorial(suits)


def _grid(deck) -> tuple[int, int] | None:
    """(ranks, suits) when the labels are every rank character followed by every suit label
    (the poker decks, "Ks"; the four-card game's "J1"), else None."""
    ranks = sorted({c[:1] for c in deck})
    suits = sorted({c[1:] for c in deck})
    return (len(ranks), len(suits)) if len(set(deck)) == len(ranks) * len(suits) == len(deck) else None


def node_count_conventions(game) -> dict:
    """The number of nodes of the game tree under several counting conventions, from the betting
    tree and the deck alone (nothing is built). Each key is a convention:

    * ``compile_tree``: what ``seqform.compile_tree`` builds (= ``game_tree_nodes``): a chance
      node per card dealt, the betting's decision nodes, and its leaves (folds and showdowns),
      each once per ordered deal of the cards dealt so far (D!/(D-k)! after k cards); a round's
      end is not a node (its last action leads straight to the next card's chance node).
    * ``decision_nodes``, ``chance_nodes``, ``terminal_nodes``: that tree's nodes by kind;
      ``nonterminal_nodes``: its decision and chance nodes.
    * ``with_round_ends``: ``compile_tree`` plus one node at each round's end, once per deal
      before the next round's cards (a tree that keeps the betting form's ``NEXT`` nodes).
    * ``one_chance_node_per_round``: a round's cards are dealt by a single chance node (the two
      private cards of Rhode Island Hold'em as one move with 52 * 51 outcomes), instead of one
      chance node per card.
    * ``cards_dealt_at_root``: one chance node at the root deals every card of the game; each
      betting node then occurs once per complete ordered deal (the future public cards hidden
      by the information sets). ``cards_dealt_at_root_decision_nodes``: its decision nodes.
    * ``hands_as_sets``: nodes told apart only by the *sets* of cards each player holds and of
      public cards (the board), not by the order they were dealt in: D!/((D-k)! prod n_g!) deals
      after k cards, n_g of them held by g. In Rhode Island Hold'em this forgets which public card
      was the flop and which the turn, so it merges nodes that differ in what the players saw
      when they bet; a count of states, not of a game tree.
    * ``suit_isomorphic``: nodes up to permutations of the suits, i.e. the number of suit orbits
      of the ordered deals (present only when the deck is a full ranks x suits grid).

    ``compile_tree``, ``with_round_ends``, ``one_chance_node_per_round`` and
    ``cards_dealt_at_root`` are each the size of a game tree of the same game; the others count
    parts of one or classes of nodes.
    """
    bet = game.betting
    deck, levels = len(game.deck), len(game.levels)
    perm = [math.perm(deck, k) for k in range(levels + 1)]
    decide = [len(bet.nodes_of_round(r, DECIDE)) for r in range(bet.num_rounds)]
    leaves = [len(bet.nodes_of_round(r, FOLD, SHOWDOWN)) for r in range(bet.num_rounds)]
    ends = [len(bet.nodes_of_round(r, NEXT)) for r in range(bet.num_rounds)]
    entries = [1] + ends[:-1]  # ways into round r: the root, or one of round r-1's ends
    start = [0] + list(game.dealt_by[:-1])  # levels dealt before round r's deals

    def by_round(counts: list, per_level: list) -> int:
        return sum(c * per_level[game.dealt_by[r]] for r, c in enumerate(counts))

    total = game_tree_nodes(game)
    decision, terminal = by_round(decide, perm), by_round(leaves, perm)
    out = {
        "compile_tree": total,
        "decision_nodes": decision,
        "chance_nodes": total - decision - terminal,
        "terminal_nodes": terminal,
        "nonterminal_nodes": total - terminal,
        "with_round_ends": total + by_round(ends, perm),
        "one_chance_node_per_round": decision
        + terminal
        + sum(entries[r] * perm[start[r]] for r in range(bet.num_rounds) if game.dealt_by[r] > start[r]),
        "cards_dealt_at_root": int(levels > 0) + (sum(decide) + sum(leaves)) * perm[levels],
        "cards_dealt_at_root_decision_nodes": sum(decide) * perm[levels],
    }
    held = [
        math.prod(
            math.factorial(list(owner for owner, _ in game.levels[:k]).count(g))
            for g in {owner for owner, _ in game.levels[:k]}
        )
        for k in range(levels + 1)
    ]
    out["hands_as_sets"] = game_tree_nodes(game, [p // h for p, h in zip(perm, held)])
    grid = _grid(game.deck)
    if grid is not None:
        out["suit_isomorphic"] = game_tree_nodes(game, [_suit_orbits(*grid, k) for k in range(levels + 1)])
    return out

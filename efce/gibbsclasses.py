"""The tree model's Gibbs colour classes (``efce.treemodel``, section 3.3 of Dudik & Gordon 2009):
information sets none of whose nodes is an ancestor of another's touch disjoint sets of leaves,
so one vectorised step redraws them all. A class: the information sets whose nodes all lie at one
depth; any other information set is a class of its own.

References:

- Dudik & Gordon (2009), "A Sampling-Based Approach to Computing Equilibria in Succinct Extensive-Form Games", UAI.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from seqform.model.tree import Tree


@dataclass
class LeafRows:
    """Leaf-path data for a set of leaves (rows): shapes (R, D) unless said."""

    J: np.ndarray  # information set at each slot (the dummy column for padding)
    A: np.ndarray  # action taken there on the path
    P: np.ndarray  # player (-1 for padding)
    pb: np.ndarray  # pair index of (trigger (J, 0), tau_P(z)); + s(J) * U for action s(J)
    U: np.ndarray  # number of pairs per trigger of J
    tb: np.ndarray  # trigger id of (J, 0)
    up: np.ndarray  # u_P(z)
    c: np.ndarray  # (R,) chance weight
    wu: np.ndarray  # (R,) w . u(z)


def gibbs_classes(tree: Tree, M: int, rows: LeafRows, A: np.ndarray, J: np.ndarray) -> list:
    """The colour classes of ``tree``'s ``M`` information sets, each as (its information sets,
    None when no leaf path meets it (a flat conditional), else its leaves sorted by owner:
    (their ``rows``, the slot of the owner on each path, where each owner's leaves start, the
    owner's action counts ``A``, the leaves, the common leaf count per owner or 0, the owners)).
    ``J`` (leaves, slots): the information set at each slot of each leaf's path."""
    # each node's depth, one step up the tree at a time for every node at once
    nd = np.zeros(len(tree.parent), dtype=np.int64)
    up = np.asarray(tree.parent, dtype=np.int64).copy()
    while (alive := up >= 0).any():
        nd[alive] += 1
        up[alive] = tree.parent[up[alive]]
    decn = np.flatnonzero(tree.player >= 0)
    inf = tree.infoset[decn]
    lo = np.full(M, 1 << 40)
    hi = np.full(M, -1)
    np.minimum.at(lo, inf, nd[decn])
    np.maximum.at(hi, inf, nd[decn])
    groups: dict = {}
    for m in range(M):
        groups.setdefault(int(lo[m]) if lo[m] == hi[m] else ("alone", m), []).append(m)
    classes: list[tuple[np.ndarray, tuple | None]] = []
    r = rows
    for key in sorted(groups, key=lambda g: (isinstance(g, tuple), g if not isinstance(g, tuple) else g[1])):
        members = np.array(groups[key], dtype=np.int64)
        inK = np.zeros(M + 1, dtype=bool)
        inK[members] = True
        hit = inK[J]
        zs = np.flatnonzero(hit.any(1))
        if len(zs) == 0:
            classes.append((members, None))  # never on a path: a flat conditional
            continue
        slot = hit[zs].argmax(1)
        owner = J[zs, slot]
        order = np.argsort(owner, kind="stable")
        zs, slot, owner = zs[order], slot[order], owner[order]
        owners, starts = np.unique(owner, return_index=True)
        sub = LeafRows(
            r.J[:, zs].copy(),
            r.A[:, zs].copy(),
            r.P[:, zs].copy(),
            r.pb[:, zs].copy(),
            r.U[:, zs].copy(),
            r.tb[:, zs].copy(),
            r.up[:, zs].copy(),
            r.c[zs],
            r.wu[zs],
        )
        sizes = np.diff(np.append(starts, len(zs)))
        # every owner above the same number of leaves (Indian poker's first class): a reshape
        # sums them, several times faster than reduceat
        even = int(sizes[0]) if (sizes == sizes[0]).all() else 0
        classes.append((owners, (sub, slot, starts, A[owner], zs, even, owner)))
    return classes

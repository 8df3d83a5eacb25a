"""The exact sparse solver against FLINT's dense solve (an independent method), on random sparse
systems."""
import random

import flint
import pytest
from hypothesis import given, settings, strategies as st

from seqform.errors import CertificateError
from seqform.rationalsolve import TooLarge, solve_sparse


def _random_system(rng, n, density):
    rows = []
    for i in range(n):
        r = {i: flint.fmpq(rng.randint(1, 9), rng.randint(1, 5))}
        for _ in range(density):
            c = rng.randrange(n)
            r[c] = flint.fmpq(rng.randint(-9, 9), rng.randint(1, 7))
        rows.append({c: v for c, v in r.items() if v != 0})
    rhs = [flint.fmpq(rng.randint(-5, 5), rng.randint(1, 3)) for _ in range(n)]
    return rows, rhs


@given(st.integers(1, 40), st.integers(0, 3), st.integers(0, 10**6))
@settings(max_examples=60, deadline=None)
def test_matches_dense_flint(n, density, seed):
    rng = random.Random(seed)
    rows, rhs = _random_system(rng, n, density)
    M = flint.fmpq_mat(n, n)
    for i, r in enumerate(rows):
        for c, v in r.items():
            M[i, c] = v
    b = flint.fmpq_mat(n, 1, rhs)
    try:
        want = M.solve(b)
    except ZeroDivisionError:
        with pytest.raises(CertificateError):
            solve_sparse(rows, rhs, n)
        return
    z = solve_sparse(rows, rhs, n)
    assert [z[i] for i in range(n)] == [want[i, 0] for i in range(n)]


def test_singular_and_nonsquare():
    one = flint.fmpq(1)
    with pytest.raises(CertificateError):
        solve_sparse([{0: one, 1: one}, {0: one, 1: one}], [one, one], 2)
    with pytest.raises(CertificateError, match="not square"):
        solve_sparse([{0: one}], [one], 2)


def test_limit():
    rng = random.Random(1)
    rows, rhs = _random_system(rng, 60, 8)
    with pytest.raises(TooLarge):
        solve_sparse(rows, rhs, 60, limit=100)

"""The exact sparse solver against FLINT's dense solve (an independent method), on random sparse
systems."""

import random

import flint
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from seqform.errors import CertificateError
from seqform.exact.sparselu import TooLarge, solve_sparse


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


def test_transposed_and_singular_solves_from_one_factorization():
    """``SparseLU`` of M also solves M^T (``transposed``), and on singular systems gives null
    vectors and consistency residuals for both, checked against the definitions directly."""
    import random

    from seqform.exact.sparselu import SparseLU

    rng = random.Random(7)
    zero = flint.fmpq(0)
    singular = 0
    for _ in range(300):
        n = rng.randint(1, 9)
        rows = [
            {c: flint.fmpq(rng.randint(-2, 2), rng.randint(1, 3)) for c in rng.sample(range(n), rng.randint(1, n))}
            for _ in range(n)
        ]
        rows = [{c: v for c, v in r.items() if v} for r in rows]
        if n > 1 and rng.random() < 0.5:
            rows[-1] = dict(rows[0])
        lu = SparseLU(rows, n, allow_singular=True)
        singular += bool(lu.free_cols)
        for view, mat in (
            (lu, lambda r, c: rows[r].get(c, zero)),
            (lu.transposed(), lambda r, c: rows[c].get(r, zero)),
        ):
            for f in view.free_cols:
                v = view.null_vector(f)
                assert any(v) and all(sum((mat(r, c) * v[c] for c in range(n)), zero) == 0 for r in range(n))
            q = [flint.fmpq(rng.randint(-3, 3)) for _ in range(n)]
            rhs = [sum((mat(r, c) * q[c] for c in range(n)), zero) for r in range(n)]
            assert not any(view.residuals(rhs))
            z = view.solve(rhs)
            assert all(sum((mat(r, c) * z[c] for c in range(n)), zero) == rhs[r] for r in range(n))
    assert singular > 50

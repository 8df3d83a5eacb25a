"""Games too large for the memory limit are refused before memory runs out, with the estimate and
the limit in the message."""

import pytest

import seqform
from seqform import games
from seqform.model.limits import TooLargeError, memory_limit


def test_tree_too_large_is_refused_while_compiling():
    with pytest.raises(TooLargeError) as e:
        seqform.solve(games.load("goofspiel(6)"), memory_limit_gib=0.05)
    msg = str(e.value)
    assert "more than 134,217 nodes" in msg and "0.05 GiB" in msg


def test_lp_too_large_is_refused_before_highs():
    with pytest.raises(TooLargeError) as e:
        seqform.solve(games.leduc(ranks=5), memory_limit_gib=0.04, abstraction=False)
    assert "39,962 nonzeros" in str(e.value) and "0.04 GiB" in str(e.value)
    # the lossless abstraction's LP, a quarter of the size, fits where the game's own does not
    sol = seqform.solve(games.leduc(ranks=5), memory_limit_gib=0.04)
    assert sol.certified and sol.method.startswith("abstraction-")


def test_limit_from_environment(monkeypatch):
    monkeypatch.setenv("SEQFORM_MEMORY_LIMIT", "1.5")
    assert memory_limit() == int(1.5 * 2**30)
    monkeypatch.setenv("SEQFORM_MEMORY_LIMIT", "lots")
    with pytest.raises(seqform.SeqformError, match="not a number"):
        memory_limit()
    monkeypatch.delenv("SEQFORM_MEMORY_LIMIT")
    assert memory_limit() > 0


def test_cli_refusal_is_one_line():
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "seqform", "solve", "goofspiel(6)", "--memory-limit", "0.05", "--quiet"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2
    assert r.stderr.startswith("seqform: error: game 'goofspiel(cards=6)' has more than")
    assert "Traceback" not in r.stderr

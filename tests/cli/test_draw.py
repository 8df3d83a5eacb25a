"""``seqform draw``: the files it writes, the profile it draws (an equilibrium, checked exactly, or
the file's), and its refusals, each one line on standard error with exit status 2 and no file
written. Run in this process (``seqform.cli.main.main``), with matplotlib's Agg renderer."""

from __future__ import annotations

from fractions import Fraction

import pytest

import seqform
from seqform.cli import drawcommand
from seqform.cli.main import main
from seqform.installation import install_command

pytest.importorskip("matplotlib")


def draw(capsys, *argv: str) -> tuple:
    status = main(["draw", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def one_error_line(err: str, *needles: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("seqform: error: "), err
    for needle in needles:
        assert needle in lines[0], lines[0]


@pytest.mark.parametrize("ext,magic", [("svg", b"<?xml"), ("pdf", b"%PDF"), ("png", b"\x89PNG")])
def test_writes_each_format(capsys, tmp_path, ext, magic):
    out = tmp_path / f"threat.{ext}"
    status, stdout, err = draw(capsys, "threat_general_sum", "--out", str(out))
    assert status == 0, err
    assert out.read_bytes()[: len(magic)] == magic
    assert stdout == f"threat_general_sum -> {out}: 3 leaves, an equilibrium (backward-induction)\n"


@pytest.mark.parametrize("name", ["kuhn", "threat_general_sum", "threat_zero_sum", "mertens_voting", "selten_fig3"])
def test_without_strategy_it_draws_an_exact_equilibrium(capsys, tmp_path, monkeypatch, name):
    drawn = {}

    def spy(tree, profile, path, max_leaves):
        drawn.update(tree=tree, profile=profile)
        return seqform.draw_tree(tree, profile, path, max_leaves=max_leaves)

    monkeypatch.setattr(drawcommand, "draw_tree", spy)
    status, _, err = draw(capsys, name, "--out", str(tmp_path / "t.svg"), "--quiet")
    assert status == 0 and err == ""
    ev = seqform.evaluate(drawn["tree"], drawn["profile"], exact=True)
    assert ev.nash_conv == 0  # every player's exact best response gains nothing


def test_a_game_without_a_computable_equilibrium_is_drawn_with_a_note(capsys, tmp_path, monkeypatch):
    import seqform.exact.nplayerpolish as nplayerpolish

    drawn = {}

    def spy(tree, profile, path, max_leaves):
        drawn.update(profile=profile)
        return seqform.draw_tree(tree, profile, path, max_leaves=max_leaves)

    monkeypatch.setattr(drawcommand, "draw_tree", spy)
    monkeypatch.setattr(nplayerpolish, "MAX_UNKNOWNS", 3)  # selten_fig3 is then too large for the polish
    status, _, err = draw(capsys, "selten_fig3", "--out", str(tmp_path / "t.svg"), "--quiet")
    assert status == 0 and drawn["profile"] is None
    assert err.count("\n") == 1 and err.startswith("seqform: note: ") and "--strategy" in err


def test_no_strategy_draws_without_a_note(capsys, tmp_path):
    status, stdout, err = draw(capsys, "selten_horse", "--out", str(tmp_path / "h.png"), "--no-strategy", "--quiet")
    assert status == 0 and err == "" and stdout == ""
    assert (tmp_path / "h.png").is_file()


def test_draws_the_profile_of_a_strategy_file(capsys, tmp_path, monkeypatch):
    tree = seqform.compile_tree(seqform.games.load("selten_horse"))
    profile = seqform.Profile([[1, 1, 0], [1, 1, 0], [1, Fraction(1, 4), Fraction(3, 4)]])
    seqform.write_profile(tree, profile, tmp_path / "horse.json")
    drawn = {}
    monkeypatch.setattr(drawcommand, "draw_tree", lambda t, p, path, max_leaves: drawn.update(profile=p))
    status, stdout, err = draw(
        capsys, "selten_horse", "--strategy", str(tmp_path / "horse.json"), "--out", str(tmp_path / "h.svg")
    )
    assert status == 0, err
    assert [list(map(Fraction, b)) for b in drawn["profile"].behaviour] == profile.behaviour
    assert "the profile of" in stdout and "note" not in err


def test_too_large_is_refused_before_drawing(capsys, tmp_path):
    out = tmp_path / "leduc.svg"
    status, _, err = draw(capsys, "leduc", "--out", str(out))
    assert status == 2
    one_error_line(err, "too large to draw", "64 leaves", "--max-leaves")
    status, _, err = draw(capsys, "kuhn", "--out", str(out), "--max-leaves", "20", "--quiet")
    assert status == 2
    one_error_line(err, "30 leaves", "at most 20", "--max-leaves")
    assert not out.exists()
    status, _, err = draw(capsys, "kuhn", "--out", str(out), "--max-leaves", "0")
    assert status == 2
    one_error_line(err, "--max-leaves must be at least 1")


def test_bad_extension(capsys, tmp_path):
    status, _, err = draw(capsys, "kuhn", "--out", str(tmp_path / "kuhn.jpg"))
    assert status == 2
    one_error_line(err, "kuhn.jpg", ".svg, .pdf, .png")
    assert not list(tmp_path.iterdir())


def test_missing_strategy_file(capsys, tmp_path):
    status, _, err = draw(capsys, "kuhn", "--out", str(tmp_path / "k.svg"), "--strategy", str(tmp_path / "no.json"))
    assert status == 2
    one_error_line(err, "no.json", "no such file")
    assert not (tmp_path / "k.svg").exists()


def test_a_strategy_for_another_game(capsys, tmp_path):
    kuhn = seqform.compile_tree(seqform.games.load("kuhn"))
    seqform.write_profile(kuhn, seqform.uniform(kuhn), tmp_path / "kuhn.json")
    status, _, err = draw(
        capsys, "threat_zero_sum", "--out", str(tmp_path / "t.svg"), "--strategy", str(tmp_path / "kuhn.json")
    )
    assert status == 2
    one_error_line(err, "'kuhn'", "'threat_zero_sum'")
    assert not (tmp_path / "t.svg").exists()


def test_strategy_and_no_strategy_exclude_each_other(capsys, tmp_path):
    with pytest.raises(SystemExit) as e:
        main(["draw", "kuhn", "--out", str(tmp_path / "k.svg"), "--strategy", "s.json", "--no-strategy"])
    assert e.value.code == 2
    assert "not allowed with" in capsys.readouterr().err


def test_missing_matplotlib_names_the_install(capsys, tmp_path, monkeypatch):
    real = drawcommand.importlib.util.find_spec
    monkeypatch.setattr(
        drawcommand.importlib.util, "find_spec", lambda name, *a: None if name == "matplotlib" else real(name, *a)
    )
    status, _, err = draw(capsys, "kuhn", "--out", str(tmp_path / "k.svg"))
    assert status == 2
    one_error_line(err, install_command("plot"))
    assert not (tmp_path / "k.svg").exists()


def test_quiet_in_a_fresh_process_prints_nothing(tmp_path):
    """Run as a user runs it: with --quiet, neither seqform nor the LP solver under the equilibrium
    (HiGHS prints a banner at its first use in a process) writes anything."""
    import subprocess
    import sys

    out = tmp_path / "kuhn.svg"
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "draw", "kuhn", "--out", str(out), "--quiet"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r.stderr
    assert out.read_text().lstrip().startswith("<?xml")

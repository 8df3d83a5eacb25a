"""Messages in the reader's words: the command line names flags (``--no-check-game``,
``--missing-uniform``, ``--exact-limit``), the library names parameters (``check_game=False``),
through one mechanism (``seqform.errors.Remedy`` shown inside ``flags_for_parameters``); a
mistyped game, command or choice is answered with the closest names; a strategy file's
``"game"`` names its game in any of its spellings. The commands run in this process
(``seqform.cli.main.main``)."""

from __future__ import annotations

import json
import pickle

import pytest

from seqform.cli.main import main
from seqform.errors import Remedy, StrategyError, flags_for_parameters


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """``(status, stdout, stderr)`` of ``seqform ARGV``; argparse's refusals (SystemExit) included."""
    try:
        status = main(list(argv))
    except SystemExit as e:
        status = e.code
    out, err = capsys.readouterr()
    return status, out, err


def one_line_error(status: int, err: str) -> str:
    """The one error line of a refused command (exit status 2), without progress lines."""
    assert status == 2, err
    lines = [x for x in err.splitlines() if not x.startswith("[")]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture(scope="module")
def kuhn_file(tmp_path_factory):
    """A certified equilibrium of the built-in Kuhn poker as a strategy file (``solve --json``)."""
    from seqform.games import load
    from seqform.io.strategyjson import profile_to_json
    from seqform.solve import solve

    sol = solve(load("kuhn"))
    obj = profile_to_json(sol.tree, sol.exact_profile)
    path = tmp_path_factory.mktemp("strategy") / "kuhn.json"
    path.write_text(json.dumps(obj))
    return path, obj


def write(tmp_path, obj, name="s.json"):
    path = tmp_path / name
    path.write_text(json.dumps(obj))
    return str(path)


def test_another_games_file_names_the_flag_and_the_flag_reads_it(capsys, tmp_path, kuhn_file):
    _, obj = kuhn_file
    path = write(tmp_path, {**obj, "game": "leduc"})
    line = one_line_error(*run(capsys, "evaluate", "kuhn", path, "--quiet")[::2])
    assert "--no-check-game" in line and "check_game" not in line.replace("--no-check-game", "")
    status, out, err = run(capsys, "evaluate", "kuhn", path, "--no-check-game", "--json", "--quiet")
    assert status == 0, err
    assert json.loads(out)["nash_conv"] == "0"  # the file's profile, read anyway: an equilibrium


def test_library_names_the_parameter(kuhn_file):
    from seqform.games import load
    from seqform.io.strategyjson import profile_from_json
    from seqform.model.tree import compile_tree

    _, obj = kuhn_file
    tree = compile_tree(load("kuhn"))
    with pytest.raises(StrategyError) as e:
        profile_from_json(tree, {**obj, "game": "leduc"})
    assert "pass check_game=False" in str(e.value) and "--" not in str(e.value)
    # the same exception, printed where the command line prints, names the flag
    with flags_for_parameters({"check_game=False": "--no-check-game"}):
        assert "use --no-check-game" in str(e.value)
    # and it survives a trip through a process pool (pickling) with its remedy
    back = pickle.loads(pickle.dumps(e.value))
    assert str(back) == str(e.value) and back.remedy.param == "check_game"


def test_remedy_words():
    with flags_for_parameters({"missing=uniform": "--missing-uniform", "exact_limit": "--exact-limit"}):
        assert str(Remedy("missing", "uniform", "to play them")) == "use --missing-uniform to play them"
        assert str(Remedy("exact_limit", purpose="to try")) == "raise --exact-limit to try"
        assert str(Remedy("undefined", "normalize")) == 'pass undefined="normalize"'  # no flag: the parameter
    assert str(Remedy("missing", "uniform")) == 'pass missing="uniform"'
    assert str(Remedy("check_game", False)) == "pass check_game=False"
    assert str(Remedy("exact_limit")) == "raise exact_limit"


def test_missing_information_sets_name_the_flag(capsys, tmp_path, kuhn_file):
    _, obj = kuhn_file
    cut = json.loads(json.dumps(obj))
    dropped = cut["strategies"][1]["infosets"].pop()
    path = write(tmp_path, cut)
    line = one_line_error(*run(capsys, "evaluate", "kuhn", path, "--quiet")[::2])
    assert "--missing-uniform" in line and "missing=" not in line and repr(dropped["infoset"]) in line
    status, out, err = run(capsys, "evaluate", "kuhn", path, "--missing-uniform", "--json", "--quiet")
    assert status == 0, err
    assert json.loads(out)["exact"] is True


def test_exact_limit_note_names_the_flag_on_the_command_line(capsys):
    import seqform
    from seqform.games import load

    status, out, err = run(capsys, "solve", "--exact-limit", "1000", "leduc", "--quiet")
    assert status == 0, err
    assert "raise --exact-limit to try" in out and "exact_limit" not in out
    # the library's note names the parameter
    note = seqform.solve(load("leduc"), exact_limit=1000).certificate.note
    assert "raise exact_limit to try" in note and "--" not in note


@pytest.mark.parametrize("spelling", ["kuhn_poker", "kuhn_poker()", "openspiel:kuhn_poker", " kuhn_poker ( ) "])
def test_one_game_in_any_spelling(capsys, tmp_path, spelling):
    pytest.importorskip("pyspiel")
    status, out, err = run(capsys, "solve", "openspiel:kuhn_poker", "--json", "--strategy", "--quiet")
    assert status == 0, err
    obj = json.loads(out)["strategy"]
    path = write(tmp_path, {**obj, "game": spelling})
    status, out, err = run(capsys, "evaluate", "openspiel:kuhn_poker", path, "--json", "--quiet")
    assert status == 0, err
    assert json.loads(out)["nash_conv"] == "0"


def test_same_game():
    from seqform.io.gamespec import same_game

    assert same_game("openspiel:kuhn_poker", "kuhn_poker()")
    assert same_game("leduc(ranks=4, suits=2)", "leduc(ranks=4,suits=2)")
    assert not same_game("kuhn", "kuhn_poker")  # the built-in game is another game
    assert not same_game("leduc(ranks=4)", "leduc")


@pytest.mark.parametrize(
    "argv, suggestion",
    [
        (["solve", "leduck"], "did you mean 'leduc'"),
        (["info", "rhode_iland"], "did you mean 'rhode_island'"),
        (["slove", "kuhn"], "did you mean 'solve'"),
        (["solve", "kuhn", "--method", "simplx"], "did you mean 'simplex'"),
        (["solve", "kuhn", "--refine", "qpf"], "did you mean 'qpe'"),
        (["efce", "welfre", "job_market"], "did you mean welfare"),
    ],
)
def test_did_you_mean(capsys, argv, suggestion):
    status, _, err = run(capsys, *argv, "--quiet")
    assert suggestion in one_line_error(status, err)


def test_did_you_mean_openspiel(capsys):
    pytest.importorskip("pyspiel")
    status, _, err = run(capsys, "info", "openspiel:kuhn_pokr", "--quiet")
    assert "kuhn_poker" in one_line_error(status, err)


def test_no_suggestion_for_a_name_like_none(capsys):
    status, _, err = run(capsys, "info", "zzzzzz", "--quiet")
    line = one_line_error(status, err)
    assert "did you mean" not in line and "kuhn" in line  # the list of games instead


def test_json_error_says_where_once(capsys, tmp_path):
    path = tmp_path / "s.json"
    path.write_text('{"strategies": ["abc')  # json: "Unterminated string starting at"
    line = one_line_error(*run(capsys, "evaluate", "kuhn", str(path), "--quiet")[::2])
    assert "at at" not in line and "at: line 1, column 17" in line


def test_evaluate_says_which_arithmetic_it_uses(capsys, tmp_path, kuhn_file):
    path, obj = kuhn_file
    floats = json.loads(json.dumps(obj))
    for st in floats["strategies"]:
        for e in st["infosets"]:
            e["actions"] = {a: float(__import__("fractions").Fraction(p)) for a, p in e["actions"].items()}
    fpath = write(tmp_path, floats, "f.json")
    for file, kind in ((str(path), "exact"), (fpath, "float")):
        status, out, err = run(capsys, "evaluate", "kuhn", file)
        assert status == 0, err
        assert f"evaluating in {kind} arithmetic" in err
        assert any(line.split() == ["arithmetic", kind] for line in out.splitlines())


def test_install_hint_from_a_clone_and_from_a_release(monkeypatch):
    from importlib import metadata

    from seqform.io import openspiel

    class Dist:
        def __init__(self, text):
            self.text = text

        def read_text(self, name):
            return self.text if name == "direct_url.json" else None

    clone = json.dumps({"url": "file:///home/me/seqform", "dir_info": {"editable": True}})
    monkeypatch.setattr(metadata, "distributions", lambda name=None: [Dist(clone)])
    assert 'pip install -e "/home/me/seqform[openspiel]"' in openspiel.install_hint()
    monkeypatch.setattr(metadata, "distributions", lambda name=None: [Dist(None)])  # from an index
    assert 'pip install "seqform[openspiel]"' in openspiel.install_hint()

"""Study files (``seqform.study.studyspec``): cells, and one-line errors naming the key and line."""

import subprocess
import sys
from pathlib import Path

import pytest

from seqform.study.studyspec import StudyError, load_study

ROOT = Path(__file__).resolve().parents[2]
SMOKE = ROOT / "examples" / "studies" / "smoke.toml"

GOOD = """\
[study]
name = "t"
games = ["kuhn", "leduc"]
seeds = [3, 5]
iterations = { kuhn = 100, leduc = 50 }

[[solvers]]
name = "cfr+"

[[solvers]]
name = "os-mccfr-batched"
iterations = { kuhn = 400 }
params = { batch = [8, 16], exploration = 0.5 }
"""


def write(tmp_path, text, name="s.toml"):
    p = tmp_path / name
    p.write_text(text)
    return p


def test_cells_of_a_grid(tmp_path):
    spec = load_study(write(tmp_path, GOOD))
    cells = spec.cells()
    # per game: cfr+ once (deterministic), the batched sampler 2 batches x 2 seeds
    assert len(cells) == 2 * (1 + 2 * 2)
    by = {(c.game, c.solver, c.params, c.seed): c for c in cells}
    c = by[("kuhn", "os-mccfr-batched", (("batch", 16), ("exploration", 0.5)), 5)]
    assert c.iterations == 400 and c.points[-1] == 400
    assert by[("leduc", "os-mccfr-batched", (("batch", 8), ("exploration", 0.5)), 3)].iterations == 50
    assert by[("kuhn", "cfr+", (), 3)].iterations == 100
    assert len({c.key for c in cells}) == len(cells)


def test_the_smoke_study_parses():
    spec = load_study(SMOKE)
    assert spec.name == "smoke" and [s.name for s in spec.solvers] == ["cfr+", "es-mccfr"]
    assert len(spec.cells()) == 3


@pytest.mark.parametrize(
    "text,line,words",
    [
        (GOOD.replace("seeds = [3, 5]", "seed = 3"), 4, ["study.seed", "unknown key"]),
        (GOOD.replace('name = "cfr+"', 'name = "cfr++"'), 8, ["solvers[0].name", "unknown solver 'cfr++'"]),
        (GOOD.replace("batch = [8, 16]", "batches = [8, 16]"), 13, ["solvers[1].batches", "takes no parameter"]),
        (GOOD.replace("iterations = { kuhn = 400 }", "iterations = -4"), 12, ["solvers[1].iterations", "positive"]),
        (GOOD.replace('games = ["kuhn", "leduc"]', 'games = "kuhn"'), 3, ["study.games", "list"]),
        (
            GOOD.replace('games = ["kuhn", "leduc"]', 'games = ["kuhn", "leduck"]'),
            3,
            ["study.games", "'leduck'", "unknown game"],
        ),
        (
            GOOD.replace("iterations = { kuhn = 100, leduc = 50 }", "iterations = { kuhn = 100 }"),
            5,
            ["study.iterations", "leduc"],
        ),
    ],
)
def test_errors_name_the_key_and_the_line(tmp_path, text, line, words):
    p = write(tmp_path, text)
    with pytest.raises(StudyError) as e:
        load_study(p)
    msg = str(e.value)
    assert msg.startswith(f"{p}:{line}: "), msg
    for w in words:
        assert w in msg


def test_toml_syntax_error_names_line_and_column(tmp_path):
    p = write(tmp_path, GOOD.replace("seeds = [3, 5]", "seeds = [3, 5"))
    with pytest.raises(StudyError, match=rf"^{p}:\d+:\d+: not valid TOML"):
        load_study(p)


def test_cli_one_line_error_exit_2(tmp_path):
    p = write(tmp_path, GOOD.replace("seeds = [3, 5]", 'seeds = "many"'))
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "study", str(p), "--out", str(tmp_path / "o")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{p}:4: study.seeds" in lines[0], r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "study", str(tmp_path / "missing.toml")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and "no such file" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_an_unknown_game_leaves_no_output_folder(tmp_path):
    """A study naming a game that does not exist is refused before it starts: one line at the
    file's line, exit 2, and no output folder."""
    p = write(tmp_path, GOOD.replace('games = ["kuhn", "leduc"]', 'games = ["kuhn", "leduck"]'))
    out = tmp_path / "o"
    r = subprocess.run(
        [sys.executable, "-m", "seqform", "study", str(p), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 2 and r.stdout == "" and not out.exists()
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{p}:3: study.games: 'leduck'" in lines[0], r.stderr

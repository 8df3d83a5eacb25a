"""The figures of ``seqform verify --plot`` (``seqform.study.verifyplot``), checked through
matplotlib's objects: labelled axes with units, one x measure for every solver (checked against
the work each solver does, counted independently), legends outside the axes, the seed count and
the band in the title and legend, distinct styles for coinciding curves, the regret bound off by
default and never setting the y range, vector output by extension; and ``seqform verify A,B``'s
text and JSON."""

from __future__ import annotations

import json

import numpy as np
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import seqform  # noqa: E402
from seqform.cli.main import main  # noqa: E402
from seqform.errors import SeqformError  # noqa: E402
from seqform.model.strategy import uniform  # noqa: E402
from seqform.model.tree import compile_tree  # noqa: E402
from seqform.study import ground_truth, plot_reports, verify  # noqa: E402
from seqform.study.verifyplot import figure  # noqa: E402

KUHN = compile_tree(seqform.games.kuhn())


@pytest.fixture(scope="module")
def truth():
    return ground_truth(KUHN, ["efpe", "qpe"])


@pytest.fixture(scope="module")
def reports(truth):
    """cfr and cfr+ (deterministic) and es-mccfr over 3 seeds, on Kuhn, one ground truth."""
    return {
        "cfr": verify("cfr", KUHN, 40, truth=truth),
        "cfr+": verify("cfr+", KUHN, 40, truth=truth),
        "es-mccfr": verify("es-mccfr", KUHN, 60, truth=truth, seeds=3),
    }


@pytest.fixture(scope="module")
def plain():
    """cfr on Kuhn without refined equilibria: a one-panel figure, quick to draw."""
    return verify("cfr", KUHN, 20)


def drawn(reports, **kw):
    fig, info = figure(reports, **kw)
    fig.draw_without_rendering()  # lays the figure out: legend and axes get their final places
    return fig, info


def data_lines(ax) -> list:
    """The measured lines of an axes (the bounds' labels name a paper)."""
    return [ln for ln in ax.get_lines() if "et al." not in ln.get_label()]


def assert_legend_outside(fig) -> None:
    (legend,) = fig.legends
    box = legend.get_window_extent()
    for ax in fig.axes:
        assert not box.overlaps(ax.get_window_extent()), "the legend covers an axes"
    assert not any(ax.get_legend() for ax in fig.axes)


def legend_texts(fig) -> list:
    return [t.get_text() for t in fig.legends[0].get_texts()]


def test_one_solver_has_labelled_axes_with_units_and_the_legend_outside(reports):
    fig, info = drawn([reports["cfr+"]])
    top, low = fig.axes  # payoff measures; distances to the exact EFPE/QPE
    assert info.x == "nodes" and low.get_xlabel() == "work (nodes touched)"
    assert "payoff units" in top.get_ylabel() and "no unit" in low.get_ylabel()
    assert top.get_xscale() == top.get_yscale() == "log"
    assert_legend_outside(fig)
    assert fig.get_suptitle() == "cfr+ on kuhn"
    assert {"exploitability (NashConv / 2)", "|value gap|", "largest information-set regret"} <= set(legend_texts(fig))
    plt.close(fig)


def test_the_nodes_axis_is_the_work_each_solver_does(reports):
    """CFR passes the whole tree twice per iteration; MCCFR counts the nodes its samples visit."""
    fig, _ = drawn([reports["cfr"], reports["es-mccfr"]])
    exploit = fig.axes[0]
    cfr, es = data_lines(exploit)
    its = [p.iteration for p in reports["cfr"].points]
    assert np.array_equal(cfr.get_xdata(), [2 * i * KUHN.num_nodes for i in its])
    assert np.array_equal(es.get_xdata(), [p.nodes_touched for p in reports["es-mccfr"].points])
    assert {ax.get_xlabel() for ax in fig.axes} == {"work (nodes touched)"}
    plt.close(fig)


def test_seeds_give_a_labelled_band_and_the_count_in_the_title(reports):
    rep = reports["es-mccfr"]
    fig, _ = drawn([rep])
    top = fig.axes[0]
    assert "median and 10-90% band over 3 seeds" in fig.get_suptitle()
    assert "shaded: 10-90% band over 3 seeds" in legend_texts(fig)
    assert "exploitability (NashConv / 2) (median)" in legend_texts(fig)
    # a band per banded measure, the value gap's included, in its line's colour
    bands = [c for c in top.collections if len(c.get_paths())]
    colours = {tuple(np.round(c.get_facecolor()[0][:3], 6)) for c in bands}
    line_colours = {tuple(np.round(matplotlib.colors.to_rgb(ln.get_color()), 6)) for ln in data_lines(top)}
    assert len(bands) == 3 and colours == line_colours
    # the exploitability band spans the seeds' 10% and 90% quantiles, computed here again
    runs = [verify("es-mccfr", KUHN, 60, points=[60], seed=s, truth=None).points[-1].exploitability for s in range(3)]
    assert rep.points[-1].exploitability_q10 == pytest.approx(np.quantile(runs, 0.1))
    exploit_band = next(b for b in bands if np.allclose(b.get_facecolor()[0][:3], matplotlib.colors.to_rgb("C0")))
    ys = exploit_band.get_paths()[0].vertices[:, 1]
    assert ys.min() == pytest.approx(min(p.exploitability_q10 for p in rep.points))
    plt.close(fig)


def test_coinciding_distance_curves_are_distinguishable(reports):
    fig, _ = drawn([reports["cfr+"]])
    efpe, qpe = data_lines(fig.axes[1])
    # on Kuhn, CFR+ is as far from the exact EFPE as from the exact QPE: the curves coincide
    assert np.allclose(efpe.get_ydata(), qpe.get_ydata())

    def look(ln):
        return (matplotlib.colors.to_hex(ln.get_color()), str(ln.get_linestyle()), ln.get_marker(), ln.get_linewidth())

    a, b = look(efpe), look(qpe)
    assert all(x != y for x, y in zip(a, b)), (a, b)
    assert efpe.get_linewidth() > qpe.get_linewidth() and qpe.get_zorder() > efpe.get_zorder()  # the stripe shows
    plt.close(fig)


def test_the_bound_is_off_by_default_and_never_sets_the_y_range(reports):
    rep = reports["cfr"]
    off, _ = drawn([rep])
    on, info = drawn([rep], bound=True)
    assert not [ln for ln in off.axes[0].get_lines() if "bound" in ln.get_label()]
    (bound,) = [ln for ln in on.axes[0].get_lines() if "bound" in ln.get_label()]
    assert np.allclose(bound.get_ydata(), [p.theorem_bound for p in rep.points])
    assert on.axes[0].get_ylim() == off.axes[0].get_ylim()
    # the limits come from the measured values: they enclose them, tightly
    measured = [v for p in rep.points for v in (p.exploitability, abs(p.value_gap), p.max_infoset_regret) if v > 0]
    lo, hi = on.axes[0].get_ylim()
    assert lo < min(measured) and max(measured) < hi < 4 * max(measured)
    if min(bound.get_ydata()) > hi:  # clipped out entirely: said in the legend and the notes
        assert "above the plotted range" in bound.get_label() and any("above" in n for n in info.notes)
    plt.close(off)
    plt.close(on)


def test_several_solvers_one_line_each_per_measure(reports):
    reps = list(reports.values())
    fig, _ = drawn(reps, bound=True)
    assert len(fig.axes) == 5  # exploitability, |value gap|, regret, distance to EFPE, to QPE
    for ax in fig.axes:
        labels = [ln.get_label() for ln in data_lines(ax)]
        assert labels == ["cfr", "cfr+", "es-mccfr (median of 3 seeds)"], labels
        assert "payoff units" in ax.get_ylabel() or "prob." in ax.get_ylabel()
        assert ax.get_xlabel() == "work (nodes touched)"
    assert len({ln.get_color() for ln in data_lines(fig.axes[0])}) == 3
    assert "kuhn: cfr, cfr+, es-mccfr" in fig.get_suptitle() and "3 seeds (sampled solvers)" in fig.get_suptitle()
    assert_legend_outside(fig)
    plt.close(fig)


def test_the_x_axis_is_chosen_and_refused_when_a_solver_does_not_count_it(reports, plain):
    fig, info = drawn([reports["cfr"], reports["cfr+"]], x="traversals")
    assert info.x == "traversals" and np.array_equal(
        data_lines(fig.axes[0])[0].get_xdata(), [p.traversals for p in reports["cfr"].points]
    )
    plt.close(fig)
    with pytest.raises(SeqformError, match="es-mccfr does not count tree traversals"):
        figure([reports["cfr"], reports["es-mccfr"]], x="traversals")

    def fixed(tree):  # a user's solver: counts nothing
        while True:
            yield uniform(tree)

    mine = verify(fixed, KUHN, 5)
    fig, info = drawn([mine, plain])
    assert info.x == "iterations" and "fixed does not count nodes touched" in info.notes[0]
    plt.close(fig)


@pytest.mark.parametrize("ext, magic", [(".pdf", b"%PDF"), (".svg", b"<svg"), (".png", b"\x89PNG")])
def test_the_extension_picks_the_format(plain, tmp_path, ext, magic):
    path = tmp_path / f"fig{ext}"
    info = plot_reports([plain], path)
    assert info.path == str(path) and magic in path.read_bytes()[:400]


def test_an_unknown_extension_is_refused(plain, tmp_path):
    with pytest.raises(SeqformError, match=r"extension \(\.png, \.pdf, \.svg, \.eps\)"):
        plain.plot(str(tmp_path / "fig.jpg"))
    assert not (tmp_path / "fig.jpg").exists()


def test_cli_several_solvers_text_json_and_plot(capsys, tmp_path):
    svg = tmp_path / "both.svg"
    argv = ["verify", "cfr+,es-mccfr", "kuhn", "--iterations", "20", "--seeds", "2", "--quiet"]
    assert main([*argv, "--plot", str(svg), "--x", "iterations", "--bound"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0].split() == ["game", "kuhn"] and lines.count("") == 2
    assert [ln.split()[1] for ln in lines if ln.startswith("solver ")] == ["cfr+", "es-mccfr"]
    assert "median of 2 seeds" in out.split("es-mccfr")[1] and "median" not in out.split("es-mccfr")[0]
    assert b"<svg" in svg.read_bytes()[:400]
    assert main([*argv, "--json"]) == 0
    got = json.loads(capsys.readouterr().out)  # exactly one object: json.loads refuses trailing data
    assert [r["solver"] for r in got["runs"]] == ["cfr+", "es-mccfr"] and got["game_value"] == "-1/18"
    assert got["runs"][1]["points"][-1]["seeds"] == 2 and got["runs"][0]["points"][-1]["seeds"] == 1
    from jsonschema import Draft202012Validator, ValidationError

    import seqform.schemas

    schema = Draft202012Validator(seqform.schemas.load("verify"))
    schema.validate(got)
    with pytest.raises(ValidationError):  # one shape or the other, not a mix
        schema.validate({**got, "solver": "cfr+"})


@pytest.mark.parametrize(
    "argv, says",
    [
        (["verify", "cfr+,nosuch", "kuhn", "--iterations", "5"], "unknown solver 'nosuch'"),
        (["verify", "cfr+,cfr+", "kuhn", "--iterations", "5"], "'cfr+' is named twice"),
        (["verify", "cfr+", "kuhn", "--iterations", "5", "--plot", "x.jpg"], "--plot: name the figure's format"),
        (["verify", "cfr+", "kuhn", "--iterations", "5", "--bound"], "--bound applies to the figure"),
    ],
)
def test_cli_refuses_bad_input_in_one_line(capsys, argv, says):
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    (line,) = captured.err.strip().splitlines()
    assert line.startswith("seqform: error:") and says in line

"""Every command's ``--json`` output validates against its JSON Schema (``seqform.schemas``), and
every schema is itself a valid draft 2020-12 schema that declares every top-level key the command
prints. The commands run in this process (``seqform.cli.main.main``) on small built-in games."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator

import seqform.schemas
from seqform.cli.main import build_parser, main


def run_json(capsys, *argv: str, quiet: bool = True) -> dict:
    status = main([*argv, "--json", *(["--quiet"] if quiet else [])])
    out, err = capsys.readouterr()
    assert status == 0, err
    return json.loads(out)


def check(command: str, out: dict) -> None:
    schema = seqform.schemas.load(command)
    Draft202012Validator(schema).validate(out)
    # the schemas allow new keys (additionalProperties: true), but document every key we print
    undeclared = set(out) - set(schema["properties"])
    assert not undeclared, f"{command}: keys the schema does not declare: {sorted(undeclared)}"


@pytest.mark.parametrize("command", seqform.schemas.commands())
def test_every_schema_is_a_valid_draft_2020_12_schema(command):
    schema = seqform.schemas.load(command)
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert set(schema["required"]) <= set(schema["properties"])


def test_every_command_with_json_has_a_schema():
    """Each (sub)command of the parser that takes --json, the extensions' included, has a schema."""

    def walk(parser, words):
        subs = [a for a in parser._actions if a.__class__.__name__ in ("_SubParsersAction", "_Subcommands")]
        if not subs:
            if any("--json" in a.option_strings for a in parser._actions):
                yield " ".join(words)
            return
        for action in subs:
            for name, sub in action._name_parser_map.items():
                yield from walk(sub, [*words, name])

    commands = set(walk(build_parser(), []))
    assert {"solve", "evaluate", "efce welfare", "shrink"} <= commands
    have = set(seqform.schemas.commands())
    # `seqform study` takes --json for a run and for its report: two schemas
    missing = {c for c in commands if c not in have} - {"study"} | ({"study", "study report"} - have)
    assert not missing, missing


def test_load_names_the_commands_when_there_is_no_schema():
    with pytest.raises(seqform.SeqformError, match="efce sample"):
        seqform.schemas.load("no-such-command")
    assert seqform.schemas.load("efce-sample") == seqform.schemas.load("efce sample")


@pytest.mark.parametrize(
    "argv",
    [
        ["kuhn"],  # the LP, certified
        ["kuhn", "--no-certify"],
        ["kuhn", "--method", "lcp"],  # Lemke's algorithm: a general-sum solution
        ["job_market"],  # a general-sum game
        ["threat_zero_sum"],  # backward induction
        ["threat_general_sum"],  # backward induction, general-sum: subgame perfect
        ["kuhn", "--refine", "qpe"],
        ["kuhn", "--refine", "efpe", "--eps", "0.01"],
        ["kuhn", "--method", "doracle"],
        ["kuhn(players=3)"],  # CFR+ polished into an exact equilibrium: three values
        ["nau2004"],  # an irrational equilibrium: algebraic numbers
    ],
    ids=lambda a: " ".join(a),
)
def test_solve(capsys, argv):
    check("solve", run_json(capsys, "solve", *argv))
    check("solve", run_json(capsys, "solve", *argv, "--strategy"))


def test_evaluate_convert_info_games_verify(capsys, tmp_path):
    out = run_json(capsys, "solve", "kuhn", "--strategy")
    path = tmp_path / "strategy.json"
    path.write_text(json.dumps(out["strategy"]))
    check("evaluate", run_json(capsys, "evaluate", "kuhn", str(path), "--per-infoset"))
    check("evaluate", run_json(capsys, "evaluate", "kuhn", str(path), "--float"))
    check("convert", run_json(capsys, "convert", "kuhn", str(tmp_path / "kuhn.efg")))
    check("info", run_json(capsys, "info", "kuhn"))
    check("games", run_json(capsys, "games", quiet=False))
    check("verify", run_json(capsys, "verify", "cfr+", "kuhn", "--iterations", "20", "--seeds", "1"))
    check(
        "verify", run_json(capsys, "verify", "es-mccfr", "kuhn", "--iterations", "20", "--seeds", "2", "--every", "10")
    )


@pytest.mark.runtime
def test_study_and_report(capsys, tmp_path):
    study = tmp_path / "tiny.toml"
    study.write_text(
        '[study]\nname = "tiny"\ngames = ["kuhn"]\nseeds = 1\niterations = 20\ncheckpoints = 2\n\n'
        '[[solvers]]\nname = "cfr+"\n'
    )
    out = run_json(capsys, "study", str(study), "--out", str(tmp_path / "out"), "--workers", "1")
    check("study", out)
    check("study report", run_json(capsys, "study", "report", str(tmp_path / "out")))


@pytest.mark.parametrize(
    "argv",
    [
        ["sample", "job_market", "--rounds", "3"],
        [
            "sample",
            "job_market",
            "--rounds",
            "2",
            "--option",
            "expectations=mcmc",
            "--option",
            "sample_size=50",
            "--validate",
            "20,2",
        ],
        ["maxent", "job_market"],
        ["welfare", "job_market"],
        ["welfare", "job_market", "--allowance", "1/100"],  # column generation
        ["ranges", "job_market"],
    ],
    ids=lambda a: " ".join(a),
)
def test_efce(capsys, argv):
    out = run_json(capsys, "efce", *argv)
    check(f"efce {argv[0]}", out)
    assert set(out["seconds"]) >= {"total"}  # an object of named parts, as every result's


@pytest.mark.parametrize(
    "argv", [["four_card"], ["four_card", "--solve"], ["four_card", "--cfr", "0.3"]], ids=lambda a: " ".join(a)
)
def test_shrink(capsys, argv):
    check("shrink", run_json(capsys, "shrink", *argv))


def test_the_json_output_page_runs(tmp_path):
    """docs/json-output.md's examples run as a reader runs them, and print what the page says."""
    from tests import docblocks

    page = docblocks.ROOT / "docs" / "json-output.md"
    langs = set()
    for lang, start, body in docblocks.blocks(page.read_text()):
        where = f"docs/json-output.md:{start}"
        langs.add(lang)
        if lang == "python":
            docblocks.check_python(where, "\n".join(body), tmp_path)
        else:
            for cmd, expected in docblocks.shell_commands(body):
                # (docblocks.check_shell would parse the output of a --json command as JSON: here
                # it is piped to a validator, which prints one word)
                r = docblocks.run_shell(cmd, tmp_path)
                assert r.returncode == 0, f"{where}: `{cmd}` exits {r.returncode}: {r.stderr[-2000:]}"
                assert r.stdout.splitlines() == expected, f"{where}: `{cmd}` prints\n{r.stdout}"
    assert langs == {"python", "console"}

"""The declared public API: what each package exports. A change here is a change to the API and
must be deliberate (and noted in CHANGELOG.md)."""

import importlib
from importlib import metadata
from pathlib import Path

import pytest

PUBLIC = {
    "seqform": [
        "CHANCE",
        "CertificateError",
        "ChanceProbabilityError",
        "Evaluation",
        "Game",
        "GameError",
        "GeneralSumSolution",
        "ImperfectRecallError",
        "Profile",
        "Result",
        "SeqformError",
        "Solution",
        "SolverError",
        "StrategyError",
        "TERMINAL",
        "Tree",
        "UnknownGameError",
        "UnsupportedGameError",
        "__version__",
        "best_response",
        "compile_tree",
        "evaluate",
        "exploitability",
        "from_openspiel",
        "games",
        "infoset_regret",
        "read_efg",
        "registry",
        "sequence_form",
        "solve",
        "uniform",
        "write_efg",
        # the model's strategies, files and converters
        "realization_plan",
        "behaviour_from_realization",
        "profile_to_json",
        "profile_from_json",
        "read_profile",
        "write_profile",
        "to_pygambit_behavior",
        "from_pygambit_behavior",
        "to_openspiel_policy",
        "from_openspiel_policy",
        "draw_tree",
        # every user-facing exception (seqform.errors)
        "EfgParseError",
        "TooLargeError",
        "TimeLimitError",
        "CheckpointError",
        "UnguardedMainError",
        "OpenSpielNotInstalled",
        "StudyError",
    ],
    "seqform.errors": [
        "SeqformError",
        "GameError",
        "ImperfectRecallError",
        "ChanceProbabilityError",
        "EfgParseError",
        "UnknownGameError",
        "UnsupportedGameError",
        "TooLargeError",
        "SolverError",
        "TimeLimitError",
        "StrategyError",
        "CertificateError",
        "CheckpointError",
        "UnguardedMainError",
        "OpenSpielNotInstalled",
        "StudyError",
    ],
    "seqform.iterative": [
        "RegretMinimizer",
        "MonteCarloCFR",
        "BatchedExternalSampling",
        "BatchedOutcomeSampling",
        "ExcessiveGap",
        "tune_scale",
        "OptimisticMirrorDescent",
        "DilatedEntropy",
        "DilatedEuclidean",
    ],
    "seqform.games": [
        "flipit",
        "goofspiel",
        "guess_the_ace",
        "kuhn",
        "leduc",
        "liars_dice",
        "load",
        "register",
        "available",
        "REGISTRY",
        "mertens_voting",
        "selten_fig2",
        "selten_fig3",
        "nau2004",
        "selten_horse",
        "threat_general_sum",
        "threat_zero_sum",
    ],
    "seqform.registry": ["ENTRY_POINT_GROUP", "Registry", "registry"],
    "seqform.result": ["Result", "jsonable"],
    "seqform.study": [
        "StudyError",
        "StudyResult",
        "StudySpec",
        "load_study",
        "read_table",
        "report",
        "run_study",
        "verify",
        "VerifyReport",
        "VerifyPoint",
        "ground_truth",
        "GroundTruth",
        "checkpoints",
        "plot_reports",
    ],
    "refinements": [
        "DefinitionCertificate",
        "Perturbation",
        "PerturbationError",
        "RefinedSolution",
        "RefinementError",
        "certify_efpe",
        "certify_qpe",
        "custom",
        "efpe",
        "qpe",
        "refine",
    ],
    "lossless": [
        "AbstractGame",
        "Abstraction",
        "AbstractionError",
        "Betting",
        "BettingBuilder",
        "DECIDE",
        "FOLD",
        "NEXT",
        "OrderedSignalError",
        "OrderedSignalGame",
        "PUBLIC",
        "SHOWDOWN",
        "Shrunk",
        "ShrunkSolution",
        "SignalTree",
        "build_signal_tree",
        "four_card",
        "gameshrink",
        "leduc_os",
        "limit_betting",
        "outcomes",
        "rhode_island",
        "shrink",
        "solve",
        "split_pot",
        "CardMatrices",
        "card_matrices",
        "SequenceLayout",
        "sequence_layout",
        "Bracket",
        "VectorBestResponse",
        "bracket",
        "VectorCFRResult",
        "cfr_plus",
        "SparsifiedLP",
        "SparsifiedSolution",
        "solve_sparsified",
        "sparsified_lp",
        "game_tree_nodes",
        "node_count_conventions",
    ],
    "doracle": ["DoubleOracleResult", "MODES", "double_oracle", "extended_profile", "solve"],
    "efce": [
        "ColumnGenerationResult",
        "ColumnGenerationStopped",
        "EFCEColumnGeneration",
        "EFCEResult",
        "SamplerOptions",
        "SamplingResult",
        "efce_column_generation",
        "grid_game",
        "indian_poker",
        "job_market",
        "max_entropy",
        "payoff_ranges",
        "profiles",
        "sample_efce",
        "solve_lp",
        "validated_regret",
        "exact_distribution",
        "max_regret",
    ],
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_exports_are_the_declared_ones(module):
    mod = importlib.import_module(module)
    assert sorted(mod.__all__) == sorted(PUBLIC[module])
    for name in mod.__all__:
        assert hasattr(mod, name), f"{module}.{name} is declared but missing"


def test_version_comes_from_the_package_metadata():
    import seqform

    assert seqform.__version__ == metadata.version("seqform")


@pytest.mark.parametrize("package", ["seqform", "refinements", "lossless", "doracle", "efce"])
def test_packages_declare_their_type_hints(package):
    mod = importlib.import_module(package)
    assert (Path(mod.__file__).parent / "py.typed").is_file()


def test_solvers_return_the_one_result_type():
    import doracle
    import efce
    import lossless
    import refinements
    import seqform

    for cls in (
        seqform.Solution,
        seqform.GeneralSumSolution,
        refinements.RefinedSolution,
        doracle.DoubleOracleResult,
        lossless.ShrunkSolution,
        efce.SamplingResult,
        efce.EFCEResult,
        efce.ColumnGenerationResult,
    ):
        assert issubclass(cls, seqform.Result), cls


def test_every_user_facing_exception_is_at_the_front_door():
    """``seqform.errors`` lists every user-facing exception, each a ``SeqformError`` that ``seqform``
    exports too; every extension's exceptions are ``SeqformError``s as well."""
    import seqform
    import seqform.errors

    for name in seqform.errors.__all__:
        cls = getattr(seqform.errors, name)
        assert issubclass(cls, seqform.SeqformError), name
        assert getattr(seqform, name) is cls, name
    import doracle
    import efce
    import lossless
    import refinements

    for mod in (refinements, lossless, doracle, efce):
        for name in mod.__all__:
            obj = getattr(mod, name)
            if isinstance(obj, type) and issubclass(obj, BaseException):
                assert issubclass(obj, seqform.SeqformError), f"{mod.__name__}.{name}"


def test_moved_exceptions_are_still_where_they_were():
    import seqform.errors as E
    from seqform.io.efgread import EfgParseError
    from seqform.io.openspiel import OpenSpielNotInstalled
    from seqform.model.limits import TooLargeError
    from seqform.study.studyspec import StudyError

    assert (EfgParseError, OpenSpielNotInstalled, TooLargeError, StudyError) == (
        E.EfgParseError,
        E.OpenSpielNotInstalled,
        E.TooLargeError,
        E.StudyError,
    )


# ``seqform.solve`` (the function) hides the module of the same name, as each built-in game's
# constructor hides its module in ``seqform.games`` and ``lossless.shrink`` its module: these
# predate the front doors. No other export may hide a submodule.
SHADOWS = {
    ("seqform", "solve"),
    ("seqform.games", "kuhn"),
    ("seqform.games", "leduc"),
    ("seqform.games", "liars_dice"),
    ("seqform.games", "goofspiel"),
    ("seqform.games", "flipit"),
    ("refinements", "refine"),
    ("lossless", "shrink"),
    ("lossless", "gameshrink"),
}


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_no_export_hides_a_submodule(module):
    import pkgutil
    import types

    mod = importlib.import_module(module)
    subs = {m.name for m in pkgutil.iter_modules(getattr(mod, "__path__", []))}
    hidden = sorted(
        n
        for n in mod.__all__
        if n in subs and not isinstance(getattr(mod, n), types.ModuleType) and (module, n) not in SHADOWS
    )
    assert not hidden, hidden

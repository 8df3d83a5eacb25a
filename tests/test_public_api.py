"""The declared public API: what each package exports. A change here is a change to the API and
must be deliberate (and noted in CHANGELOG.md)."""
import importlib
from importlib import metadata
from pathlib import Path

import pytest

PUBLIC = {
    "seqform": ["CHANCE", "CertificateError", "ChanceProbabilityError", "Evaluation", "Game", "GameError",
                "GeneralSumSolution",
                "ImperfectRecallError", "Profile", "Result", "SeqformError", "Solution", "SolverError",
                "StrategyError", "TERMINAL", "Tree", "UnknownGameError", "UnsupportedGameError", "__version__",
                "best_response", "compile_tree", "evaluate", "exploitability", "from_openspiel", "games",
                "infoset_regret", "read_efg", "registry", "sequence_form", "solve", "uniform", "write_efg"],
    "seqform.games": ["flipit", "goofspiel", "guess_the_ace", "kuhn", "leduc", "liars_dice", "load", "register",
                      "available", "REGISTRY", "mertens_voting", "selten_fig2", "selten_fig3", "selten_horse",
                      "threat_general_sum",
                      "threat_zero_sum"],
    "seqform.registry": ["ENTRY_POINT_GROUP", "Registry", "registry"],
    "seqform.result": ["Result", "jsonable"],
    "seqform.study": ["StudyError", "StudyResult", "StudySpec", "load_study", "read_table", "report", "run_study"],
    "refinements": ["DefinitionCertificate", "Perturbation", "PerturbationError", "RefinedSolution", "RefinementError",
                    "certify_efpe", "certify_qpe", "custom", "efpe", "qpe", "refine"],
    "lossless": ["AbstractGame", "Abstraction", "AbstractionError", "Betting", "BettingBuilder", "DECIDE", "FOLD",
                 "NEXT", "OrderedSignalError", "OrderedSignalGame", "PUBLIC", "SHOWDOWN", "Shrunk", "ShrunkSolution",
                 "SignalTree", "build_signal_tree", "four_card", "gameshrink", "leduc_os", "limit_betting",
                 "outcomes", "rhode_island", "shrink", "solve", "split_pot", "CardMatrices", "card_matrices",
                 "SequenceLayout", "sequence_layout", "Bracket", "VectorBestResponse", "bracket",
                 "VectorCFRResult", "cfr_plus", "SparsifiedLP", "SparsifiedSolution", "solve_sparsified",
                 "sparsified_lp"],
    "doracle": ["DoubleOracleResult", "MODES", "double_oracle", "extended_profile", "solve"],
    "efce": ["ColumnGenerationResult", "ColumnGenerationStopped", "EFCEColumnGeneration", "EFCEResult", "SamplerOptions", "SamplingResult", "efce_column_generation",
             "grid_game", "indian_poker", "job_market", "max_entropy", "payoff_ranges", "profiles",
             "sample_efce", "solve_lp", "validated_regret"],
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
    for cls in (seqform.Solution, seqform.GeneralSumSolution, refinements.RefinedSolution, doracle.DoubleOracleResult,
                lossless.ShrunkSolution, efce.SamplingResult, efce.EFCEResult,
                efce.ColumnGenerationResult):
        assert issubclass(cls, seqform.Result), cls

"""Solvers tracked against certified ground truth: ``convergence`` (``seqform verify``: an
iterative solver's exploitability, value gap, information-set regret and distance to exact
refined equilibria, measured along its run), and verification studies (``seqform study``): a
study file (``studyspec``) expands into cells, each a verify run, run on a local pool or Ray
(``executors``, ``studyrunner``) into one tidy table (``studytable``) that ``studyreport`` draws
and summarises."""
from seqform.study.studyreport import report
from seqform.study.studyrunner import StudyResult, run_study
from seqform.study.studyspec import StudyError, StudySpec, load_study
from seqform.study.studytable import read_table

__all__ = ["StudyError", "StudyResult", "StudySpec", "load_study", "read_table", "report", "run_study"]

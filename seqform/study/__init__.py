"""Solvers tracked against certified ground truth: ``seqform.study.verifyharness`` (the harness of
``seqform verify``: an iterative solver's exploitability, value gap, information-set regret and
distance to exact refined equilibria, measured along its run), and verification studies
(``seqform study``): a study file (``seqform.study.studyspec``) expands into cells, each a verify
run, run on a local pool or Ray (``seqform.study.executors``, ``seqform.study.studyrunner``) into
one tidy table (``seqform.study.studytable``) that ``seqform.study.studyreport`` draws and
summarises. ``seqform.study.verifyplot`` draws verify reports, one solver or several on one
figure (``plot_reports``).

This package is a front door: ``from seqform.study import verify`` runs the harness."""

from seqform.study.studyreport import report
from seqform.study.studyrunner import StudyResult, run_study
from seqform.study.studyspec import StudyError, StudySpec, load_study
from seqform.study.studytable import read_table
from seqform.study.verifyharness import GroundTruth, VerifyPoint, VerifyReport, checkpoints, ground_truth, verify
from seqform.study.verifyplot import plot_reports

__all__ = [
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
]

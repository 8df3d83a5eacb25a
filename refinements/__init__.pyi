"""The names ``refinements`` exports (its front door, read by type checkers and by ``seqform.lazyexports``)."""

from .definitioncertificate import (
    DefinitionCertificate as DefinitionCertificate,
)
from .definitioncertificate import (
    certify_efpe as certify_efpe,
)
from .definitioncertificate import (
    certify_qpe as certify_qpe,
)
from .errors import PerturbationError as PerturbationError
from .errors import RefinementError as RefinementError
from .perturbation import Perturbation as Perturbation
from .perturbation import custom as custom
from .refine import RefinedSolution as RefinedSolution
from .refine import efpe as efpe
from .refine import qpe as qpe
from .refine import refine as refine

"""Sphinx configuration of seqform's API reference (built by tests/test_docs.py with -W)."""
from importlib import metadata

project = "seqform"
author = "the seqform developers"
release = metadata.version("seqform")
extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon"]
napoleon_numpy_docstring = True
napoleon_google_docstring = False
autodoc_member_order = "bysource"
autodoc_typehints = "none"  # the numpydoc sections say the types; signatures stay readable
html_theme = "alabaster"
exclude_patterns = ["_build"]

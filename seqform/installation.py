"""Where this copy of seqform was installed from: the source checkout, for study records and install hints.

``pip install .`` copies the package into site-packages, so the package's own folder is no longer
in the clone; pip records the folder it installed from in the distribution's ``direct_url.json``
(PEP 610), and a VCS install records its commit there. An editable install runs from the clone
itself.
"""

from __future__ import annotations

import json
import subprocess
from importlib import metadata
from pathlib import Path
from urllib.parse import unquote, urlparse


def _direct_url() -> dict | None:
    """The distribution's ``direct_url.json`` (PEP 610), or None (installed from an index, or not installed)."""
    # a checkout's own seqform.egg-info (no direct_url.json) can come first on sys.path: skip it
    texts = (d.read_text("direct_url.json") for d in metadata.distributions(name="seqform"))
    text = next((t for t in texts if t), None)
    try:
        got = json.loads(text) if text else None
    except ValueError:
        return None
    return got if isinstance(got, dict) else None


def source_directory() -> Path | None:
    """The local folder seqform was installed from (``pip install PATH`` or ``-e PATH``), if any."""
    du = _direct_url()
    if du is None or not str(du.get("url", "")).startswith("file://"):
        return None
    return Path(unquote(urlparse(du["url"]).path))


def from_checkout() -> bool:
    """True when seqform was installed from a local folder (a clone) rather than from a package index."""
    return source_directory() is not None


def _git_head(folder: Path) -> str | None:
    try:
        r = subprocess.run(["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return r.stdout.strip() if r.returncode == 0 and r.stdout.strip() else None


def git_commit() -> str | None:
    """The git commit of the code that runs: the clone the package runs from, else the commit pip
    recorded for a VCS install, else the HEAD of the folder it was installed from (its HEAD now,
    which is the installed commit unless the clone moved on since)."""
    here = _git_head(Path(__file__).resolve().parent)
    if here is not None:
        return here
    du = _direct_url() or {}
    vcs = du.get("vcs_info")
    if isinstance(vcs, dict) and vcs.get("commit_id"):
        return str(vcs["commit_id"])
    src = source_directory()
    return _git_head(src) if src is not None else None


def install_command(extra: str) -> str:
    """The command that adds the optional extra ``extra`` to this installation: from a clone,
    that clone's extra (``pip install -e "DIR[extra]"`` for an editable install), else the
    released package's (``pip install "seqform[extra]"``)."""
    du = _direct_url() or {}
    src = source_directory()
    if src is None:
        return f'pip install "seqform[{extra}]"'
    info = du.get("dir_info")
    editable = "-e " if isinstance(info, dict) and info.get("editable") else ""
    return f'pip install {editable}"{src}[{extra}]"'

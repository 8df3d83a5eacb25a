"""seqform.installation: the commit and the source folder of the running copy, for study records.

The git commits are made here in a fresh repository (git itself is the independent witness)."""

from __future__ import annotations

import subprocess

import pytest

from seqform import installation


def _repo(tmp_path):
    def git(*a):
        return subprocess.run(["git", "-C", str(tmp_path), *a], capture_output=True, text=True, check=True).stdout

    git("init", "-q")
    (tmp_path / "f").write_text("x")
    git("add", "f")
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "c")
    return git("rev-parse", "HEAD").strip()


@pytest.fixture
def installed_copy(monkeypatch, tmp_path):
    """The package as pip copies it: its own folder outside any git work tree."""
    outside = tmp_path / "site-packages" / "seqform"
    outside.mkdir(parents=True)
    monkeypatch.setattr(installation, "__file__", str(outside / "installation.py"))


def test_pip_install_from_a_clone_records_the_clones_commit(installed_copy, monkeypatch, tmp_path):
    clone = tmp_path / "clone"
    clone.mkdir()
    head = _repo(clone)
    monkeypatch.setattr(installation, "_direct_url", lambda: {"url": clone.as_uri(), "dir_info": {}})
    assert installation.source_directory() == clone
    assert installation.from_checkout()
    assert installation.git_commit() == head


def test_vcs_install_records_pips_commit(installed_copy, monkeypatch):
    du = {"url": "https://example.org/seqform.git", "vcs_info": {"vcs": "git", "commit_id": "ab" * 20}}
    monkeypatch.setattr(installation, "_direct_url", lambda: du)
    assert installation.git_commit() == "ab" * 20
    assert not installation.from_checkout()


def test_index_install_has_no_commit(installed_copy, monkeypatch):
    monkeypatch.setattr(installation, "_direct_url", lambda: None)
    assert installation.git_commit() is None
    assert installation.source_directory() is None


def test_install_commands_name_the_clone_or_the_release(monkeypatch, tmp_path):
    monkeypatch.setattr(installation, "_direct_url", lambda: {"url": tmp_path.as_uri(), "dir_info": {"editable": True}})
    assert installation.install_command("plot") == f'pip install -e "{tmp_path}[plot]"'
    monkeypatch.setattr(installation, "_direct_url", lambda: {"url": tmp_path.as_uri(), "dir_info": {}})
    assert installation.install_command("study") == f'pip install "{tmp_path}[study]"'
    monkeypatch.setattr(installation, "_direct_url", lambda: None)
    assert installation.install_command("openspiel") == 'pip install "seqform[openspiel]"'

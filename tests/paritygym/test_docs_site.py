"""The documentation site builds with `mkdocs build --strict`: every page is in the navigation, every
link and anchor resolves, and the API reference renders from the docstrings."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

REPO = pathlib.Path(__file__).resolve().parents[2]


def test_the_docs_site_builds_strictly_with_its_api_reference(tmp_path):
    site = tmp_path / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    built = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(REPO / "mkdocs.yml"),
                            "--site-dir", str(site)], cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, built.stdout + built.stderr
    api = (site / "api" / "paritygym" / "index.html").read_text()
    # mkdocstrings rendered the registry's docstrings, not just the page's headings
    assert "Makes a JAX env" in api and "paritygym.registry.EnvSpec" in api
    envs_api = (site / "api" / "envs" / "index.html").read_text()
    assert "pongjax.env.Pong" in envs_api and "tcgjax.env.TCGPocketA1" in envs_api
    changelog = (site / "changelog" / "index.html").read_text()
    assert "The first release" in changelog  # CHANGELOG.md included, not the include directive
    for page in ("getting-started", "verification", "benchmarks", "envs/pong", "dev/benchmark-history"):
        assert (site / page / "index.html").is_file(), page

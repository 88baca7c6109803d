"""Where Showdown is installed: the package's own folder when it can be, else a copy in the user cache."""

from __future__ import annotations

import shutil

from pokejax import reference


def test_a_read_only_package_folder_installs_showdown_in_the_user_cache(tmp_path, monkeypatch):
    package = tmp_path / "site-packages" / "pokejax" / "showdown"
    package.mkdir(parents=True)
    for name in ("package.json", "package-lock.json", "bridge.js"):
        shutil.copyfile(reference.SHOWDOWN_DIR / name, package / name)
    monkeypatch.setattr(reference, "SHOWDOWN_DIR", package)
    monkeypatch.setenv("PARITYGYM_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(reference.os, "access", lambda path, mode: False)  # as for a non-root user
    base = reference.showdown_dir()
    assert base == tmp_path / "cache" / f"showdown-{reference.SHOWDOWN_VERSION}"
    assert sorted(p.name for p in base.iterdir()) == ["bridge.js", "package-lock.json", "package.json"]
    assert (base / "bridge.js").read_bytes() == (package / "bridge.js").read_bytes()


def test_a_writable_or_installed_package_folder_is_used_as_is(tmp_path, monkeypatch):
    package = tmp_path / "showdown"
    (package / "node_modules").mkdir(parents=True)
    monkeypatch.setattr(reference, "SHOWDOWN_DIR", package)
    monkeypatch.setattr(reference.os, "access", lambda path, mode: False)
    assert reference.showdown_dir() == package

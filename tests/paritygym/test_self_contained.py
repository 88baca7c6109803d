"""The repository is self-contained: no file but Markdown names a path outside the clone.

A user's fresh clone has nothing beside it, so a default, a fixture or a build step that reads a
sibling folder (`../shared/...`), a machine path (`/work/...`, `/home/...`) or climbs above the
repository root works only on the machine it was written on. Markdown is exempt: notes may say where
a fact was read.
"""

from __future__ import annotations

import pathlib
import re
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]

# Machine-specific absolute roots; the look-behind keeps URLs (`host.com/home/...`) and nested paths out.
_MACHINE_ROOT = re.compile(r"(?<![\w.:/~-])/(?:work|home|root|Users|mnt|srv|scratch)/")
# The workplace's sibling folder, however it is spelled.
_SIBLING = re.compile(r"\.\./+shared\b|\bparents?\b[^\n]{0,40}[\"']shared[\"']|[\"']shared[\"']\s*/\s*[\"']")
# A Python path object stepped above the repository root by name (`REPO.parent`, `ROOT.parent`).
_ROOT_PARENT = re.compile(r"\b(?:repo|REPO|root|ROOT|repo_root|REPO_ROOT)\.parent\b")
_PARENTS_INDEX = re.compile(r"__file__\)?(?:\.resolve\(\))?\.parents\[(\d+)\]")
_CLIMB = re.compile(r"(?:\.\./)+")


def outside_references(relpath: str, text: str) -> list[str]:
    """Lines of `text` (the file at `relpath` from the root) that point outside the repository."""
    depth = len(pathlib.PurePosixPath(relpath).parent.parts)  # folders between the root and the file
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        why = None
        if _MACHINE_ROOT.search(line):
            why = "absolute machine path"
        elif _SIBLING.search(line):
            why = "folder beside the repository"
        elif relpath.endswith(".py") and _ROOT_PARENT.search(line):
            why = "parent of the repository root"
        elif relpath.endswith(".py") and any(int(k) > depth for k in _PARENTS_INDEX.findall(line)):
            why = "__file__ parents above the repository root"
        elif any(m.group().count("../") > depth for m in _CLIMB.finditer(line)):
            why = "relative path climbing above the repository root"
        if why:
            found.append(f"{relpath}:{number}: {why}: {line.strip()[:120]}")
    return found


def _project_files() -> list[str]:
    """Tracked files plus new files git does not ignore (what a commit would carry)."""
    try:
        out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("not a git checkout: the project's file list is unknown")
    return [p for p in out.splitlines() if (REPO / p).is_file()]


def test_no_file_but_markdown_points_outside_the_repository():
    this = pathlib.Path(__file__).resolve().relative_to(REPO).as_posix()
    problems = []
    for relpath in _project_files():
        if relpath.endswith(".md") or relpath == this:
            continue
        try:
            text = (REPO / relpath).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # ROMs, images, compiled data
        problems += outside_references(relpath, text)
    assert not problems, "files that point outside the repository:\n" + "\n".join(problems)


@pytest.mark.parametrize("relpath, line", [
    ("tests/gameboy/conftest.py", 'return pathlib.Path(os.environ.get("X", REPO.parent / "shared" / "roms"))'),
    ("emurust/tests/blargg.rs", 'PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/gb-test-roms")'),
    ("tcgjax/data/build_cards.py", 'DEFAULT_FACTS = pathlib.Path("/work/shared/tcg-pocket-data")'),
    ("scripts/x.sh", 'cp -r /home/alice/roms .'),
    ("pokejax/a.py", 'ROOT = pathlib.Path(__file__).resolve().parents[2]'),
    ("a/b.js", 'require("../../../node_modules/x")'),
])
def test_the_check_finds_each_kind_of_outside_path(relpath, line):
    assert outside_references(relpath, line)


@pytest.mark.parametrize("relpath, line", [
    ("tests/gameboy/conftest.py", 'REPO = pathlib.Path(__file__).resolve().parents[2]'),
    ("emurust/verify.py", 'path = pathlib.Path(__file__).resolve().parent / "roms" / "blargg"'),
    ("paritygym/x.py", 'url = "https://example.com/home/page"'),
    ("emurust/tests/blargg.rs", 'PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../README")'),
    ("paritygym/bench/output.py", 'path.parent.mkdir(parents=True, exist_ok=True)'),
])
def test_the_check_passes_paths_inside_the_repository(relpath, line):
    assert not outside_references(relpath, line)

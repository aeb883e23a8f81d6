"""Every relative link in the README and docs/ leads to a file of the repository (and, for a
Markdown file, to a heading it has), so a clone reads whole with nothing outside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def links(text: str) -> list[str]:
    """The link targets of a Markdown text, code blocks left out."""
    return LINK.findall(FENCE.sub("", text))


def slug(heading: str) -> str:
    """A heading's anchor as GitHub writes it: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    return {slug(m) for m in re.findall(r"^#+\s+(.+)$", text, re.M)}


def broken(doc: Path, root: Path = ROOT) -> list[str]:
    """The targets in ``doc`` that name no file under ``root`` or no heading of it."""
    bad = []
    for target in links(doc.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        name, _, anchor = target.partition("#")
        path = (doc.parent / name).resolve() if name else doc
        if not path.is_relative_to(root.resolve()) or not path.exists():
            bad.append(target)
        elif anchor and path.suffix == ".md" and anchor not in anchors(path):
            bad.append(target)
    return bad


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc: Path) -> None:
    assert broken(doc) == []


def test_the_check_finds_a_broken_link_and_a_missing_heading(tmp_path: Path) -> None:
    assert links("[a](b.md) ![c](d.png)\n```\n[e](f)\n```\n[g](https://x)") == ["b.md", "d.png", "https://x"]
    assert slug("Photo scoring: `zipai scan`") == "photo-scoring-zipai-scan"
    (tmp_path / "repo" / "docs").mkdir(parents=True)
    (tmp_path / "outside.md").write_text("# Out\n", encoding="utf-8")
    (tmp_path / "repo" / "a.md").write_text("# Here it is\n", encoding="utf-8")
    doc = tmp_path / "repo" / "docs" / "d.md"
    doc.write_text("# Top\n[ok](../a.md#here-it-is) [no](../a.md#there) [me](#top) [gone](x.png)\n"
                   "[out](../../outside.md) [web](https://example.org/y)\n", encoding="utf-8")
    assert broken(doc, tmp_path / "repo") == ["../a.md#there", "x.png", "../../outside.md"]


def test_nothing_points_outside_the_repository() -> None:
    assert not any("../shared/" in t for doc in DOCS for t in links(doc.read_text(encoding="utf-8")))

"""The docs' "Known gaps" lists stay true: every gap listed names a test that shows
it (marked ``xfail(strict=True)``, or skipped, with a reason naming the gap), and
every such test is listed. A gap that shows on some of a test's parameters only (an
archetype missing on one pinned seed) is marked on that parameter,
``pytest.param(4, id="seed4", marks=pytest.mark.xfail(strict=True, reason=...))``,
and listed as ``test_name[seed4]``. A gap that closes makes its strict xfail pass,
which fails the suite until the doc line and the marker go."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ("docs/quest-generation.md", "docs/simulate.md")
#: How a test says it shows a gap: its xfail/skip reason starts so, naming the doc.
REASON = re.compile(r"^known gap \((docs/[\w.-]+\.md)\): \S")
TEST_REF = re.compile(r"Test: `(tests/[\w/.-]+\.py)::(\w+(?:\[[\w.-]+\])?)`")


def known_gaps(doc: str) -> list[str]:
    """The bullets of every "Known gaps" section of ``doc``, each as one string."""
    bullets: list[str] = []
    inside = False
    for line in (ROOT / doc).read_text().splitlines():
        if line.startswith("#"):
            inside = line.lstrip("#").strip().lower() == "known gaps"
        elif inside and line.startswith("- "):
            bullets.append(line[2:])
        elif inside and line.startswith("  ") and bullets and line.strip():
            bullets[-1] += " " + line.strip()
        elif inside and line.strip() and bullets:
            inside = False  # prose after the list ends it
    return bullets


def _gap_reason(decorator: ast.expr) -> str | None:
    """The reason of ``@pytest.mark.xfail(strict=True, reason=...)`` or
    ``@pytest.mark.skip(reason=...)``; None for any other decorator (a non-strict
    xfail included: a gap that closes must be noticed)."""
    if not isinstance(decorator, ast.Call):
        return None
    name = ast.unparse(decorator.func)
    keywords = {k.arg: k.value for k in decorator.keywords}
    if name == "pytest.mark.xfail":
        strict = keywords.get("strict")
        if not (isinstance(strict, ast.Constant) and strict.value is True):
            return None
    elif name != "pytest.mark.skip":
        return None
    reason = keywords.get("reason")
    if reason is None:
        return None
    try:
        value = ast.literal_eval(reason)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _param_gaps(decorator: ast.expr, names: dict[str, ast.expr]) -> list[tuple[str, str]]:
    """(id, reason) of every ``pytest.param(..., id=..., marks=...)`` in a
    ``parametrize`` decorator whose marks carry a gap reason. The values may be
    written in the decorator or in a module-level name it refers to."""
    if not isinstance(decorator, ast.Call) or not ast.unparse(decorator.func).endswith(
        "parametrize"
    ):
        return []
    args = [names.get(a.id, a) if isinstance(a, ast.Name) else a for a in decorator.args]
    found = []
    for arg in args:
        for node in ast.walk(arg):
            if not (isinstance(node, ast.Call) and ast.unparse(node.func) == "pytest.param"):
                continue
            keywords = {k.arg: k.value for k in node.keywords}
            ident, marks = keywords.get("id"), keywords.get("marks")
            if not isinstance(ident, ast.Constant) or not isinstance(ident.value, str):
                continue
            for mark in marks.elts if isinstance(marks, ast.List | ast.Tuple) else [marks]:
                reason = _gap_reason(mark) if mark is not None else None
                if reason:
                    found.append((ident.value, reason))
    return found


def gap_tests() -> dict[tuple[str, str], str]:
    """(test file, test name) -> the doc its gap reason names, over every test file;
    a gap marked on one parameter is keyed ``name[id]``."""
    found: dict[tuple[str, str], str] = {}
    for path in sorted((ROOT / "tests").rglob("*.py")):
        source = path.read_text()
        if "known gap (" not in source:
            continue
        tree = ast.parse(source)
        names = {
            target.id: node.value
            for node in tree.body
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        for node in ast.walk(tree):
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            file = str(path.relative_to(ROOT))
            for decorator in node.decorator_list:
                marked = [("", r) for r in [_gap_reason(decorator)] if r]
                marked += [(f"[{ident}]", r) for ident, r in _param_gaps(decorator, names)]
                for suffix, reason in marked:
                    m = REASON.match(reason)
                    if m:
                        found[(file, node.name + suffix)] = m.group(1)
    return found


@pytest.mark.parametrize("doc", DOCS)
def test_every_listed_gap_names_one_test(doc: str) -> None:
    for bullet in known_gaps(doc):
        assert len(TEST_REF.findall(bullet)) == 1, f"{doc}: a gap names no test: {bullet}"


def test_each_gap_and_its_test_point_at_each_other() -> None:
    listed = {
        (m.group(1), m.group(2)): doc
        for doc in DOCS
        for bullet in known_gaps(doc)
        if (m := TEST_REF.search(bullet))
    }
    marked = gap_tests()
    missing = {ref: doc for ref, doc in listed.items() if marked.get(ref) != doc}
    assert not missing, (
        f"listed gaps whose test is not xfail(strict=True) or skipped with a reason "
        f"'known gap (<doc>): ...' naming that doc: {missing}"
    )
    unlisted = {ref: doc for ref, doc in marked.items() if ref not in listed}
    assert not unlisted, f"tests marked as showing a known gap the doc does not list: {unlisted}"


def test_the_parser_reads_bullets_and_markers() -> None:
    """The checks above cannot pass by reading nothing."""
    assert known_gaps("docs/quest-generation.md")
    assert gap_tests()
    tree = ast.parse(
        "@pytest.mark.xfail(reason='known gap (docs/a.md): x')\n"
        "def f(): ...\n"
        "@pytest.mark.xfail(strict=True, reason='known gap (docs/a.md): x')\n"
        "def g(): ...\n"
        "@pytest.mark.skip(reason='known gap (docs/a.md): x')\n"
        "def h(): ...\n"
    )
    reasons = [
        _gap_reason(d)
        for node in tree.body
        if isinstance(node, ast.FunctionDef)
        for d in node.decorator_list
    ]
    assert reasons == [None, "known gap (docs/a.md): x", "known gap (docs/a.md): x"]


def test_a_gap_on_one_parameter_is_read_as_that_parameter() -> None:
    """A strict xfail on one ``pytest.param`` names that parameter; a non-strict one,
    a parameter without an id or without marks names nothing."""
    tree = ast.parse(
        "SEEDS = [\n"
        "    pytest.param(2, id='seed2'),\n"
        "    pytest.param(4, id='seed4', marks=pytest.mark.xfail(\n"
        "        strict=True, reason='known gap (docs/a.md): x')),\n"
        "    pytest.param(5, id='seed5', marks=[\n"
        "        pytest.mark.xfail(reason='known gap (docs/a.md): y')]),\n"
        "    pytest.param(6, marks=pytest.mark.skip(reason='known gap (docs/a.md): z')),\n"
        "]\n"
        "@pytest.mark.parametrize('report', SEEDS, indirect=True)\n"
        "def f(report): ...\n"
        "@pytest.mark.parametrize('n', [pytest.param(1, id='one', marks=(\n"
        "    pytest.mark.skip(reason='known gap (docs/b.md): w'),))])\n"
        "def g(n): ...\n"
    )
    names = {"SEEDS": tree.body[0].value} if isinstance(tree.body[0], ast.Assign) else {}
    f, g = (node for node in tree.body if isinstance(node, ast.FunctionDef))
    assert _param_gaps(f.decorator_list[0], names) == [("seed4", "known gap (docs/a.md): x")]
    assert _param_gaps(g.decorator_list[0], names) == [("one", "known gap (docs/b.md): w")]
    assert TEST_REF.search("Test: `tests/x/test_y.py::test_z[seed4]`.") is not None

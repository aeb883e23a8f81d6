"""The bench's digest: the check that a redesign leaves the engine's output alone."""

from zipai.engine.bench import bench_set, main, results_digest


def test_the_digest_is_stable_and_sees_one_changed_result(capsys) -> None:
    inputs = bench_set(60, seed=3)
    assert results_digest(inputs) == results_digest(bench_set(60, seed=3))
    changed = [dict(obj) for obj in inputs]
    changed[7]["rules"] = "guangxi" if changed[7]["rules"] != "guangxi" else "hunan"
    assert results_digest(changed) != results_digest(inputs)
    assert main(["--count", "60", "--seed", "3", "--digest"]) == 0
    assert capsys.readouterr().out.strip() == f"60 layouts, results sha256 {results_digest(inputs)}"


def test_each_names_the_layouts_a_rules_version_moves(capsys) -> None:
    """Of the first 30 layouts, rules version 3 moves numbers 4 and 26: self-drawn hands holding
    the fourth of a table triple, which version 2 left free."""
    assert main(["--count", "30", "--each", "--rules-version", "2"]) == 0
    old = capsys.readouterr().out.splitlines()
    assert main(["--count", "30", "--each"]) == 0
    new = capsys.readouterr().out.splitlines()
    assert len(old) == len(new) == 30 and all(len(line.split()[1]) == 64 for line in new)
    assert [a.split()[0] for a, b in zip(old, new, strict=True) if a != b] == ["4", "26"]

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

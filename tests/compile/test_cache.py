"""The result cache: an unchanged file reopens from cache with the same result."""

from __future__ import annotations

import shutil

from kx_core.compile import CompileRequest, compile_file
from kx_core.records.results import CompileResult


def test_reopen_is_a_cache_hit_and_an_edit_is_not(tmp_path, capture):
    from kx_testing import KERNELS

    path = tmp_path / "vector_add.py"
    shutil.copy(KERNELS / "vector_add.py", path)
    request = CompileRequest(str(path), target="cuda:90")
    first = compile_file(request)
    again = compile_file(request)
    assert not first.from_cache and again.from_cache
    assert again.kernels == first.kernels and again.diagnostics == first.diagnostics
    path.write_text(path.read_text().replace("BLOCK_SIZE=1024", "BLOCK_SIZE=512"))
    edited = compile_file(request)
    assert not edited.from_cache and edited.kernels[0].launch.constexprs == {"BLOCK_SIZE": 512}
    other_target = compile_file(CompileRequest(str(path), target="cuda:80"))
    assert not other_target.from_cache and other_target.target.spec == "cuda:80"


def test_result_round_trips_through_json(capture):
    r = capture("matmul_autotune.py")
    assert CompileResult.from_json(r.to_json()) == r


def test_a_copy_elsewhere_gets_its_own_locations(tmp_path):
    """Triton's disk cache keys kernels by source, not path: shared across files, a copy
    of a file would get IR naming the other file (kx links lines through those names)."""
    import re

    from kx_testing import KERNELS

    paths = []
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        paths.append(tmp_path / folder / "vector_add.py")
        shutil.copy(KERNELS / "vector_add.py", paths[-1])
    for path in paths:
        (kernel,) = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False).kernels
        named = set(re.findall(r'loc\("([^"]+\.py)"', kernel.stages["ttgir"]))
        assert named == {str(path)}


def test_pruning_removes_the_oldest_until_80_percent_of_the_limit(tmp_path, monkeypatch):
    """Result entries and Triton's per-kernel folders alike: nothing goes while under the
    limit; past it, the oldest go until at most 80% of it is left."""
    import os

    from kx_core.compile.jobs.cache import prune, prune_triton

    for i in range(10):  # ten 100-byte entries, entry-0 the oldest
        p = tmp_path / f"entry-{i}.json"
        p.write_bytes(b"x" * 100)
        os.utime(p, (1000 + i, 1000 + i))
    assert prune(tmp_path, limit=1000) == 0 and len(list(tmp_path.glob("*.json"))) == 10
    assert prune(tmp_path, limit=900) == 3  # 1000 bytes down to 700 <= 720
    assert sorted(p.name for p in tmp_path.glob("*.json")) == [f"entry-{i}.json" for i in range(3, 10)]

    monkeypatch.setenv("KX_CACHE_DIR", str(tmp_path / "cache"))
    for f in range(2):
        for k in range(3):
            kernel = tmp_path / "cache" / "triton" / f"file{f}" / f"kernel{k}"
            kernel.mkdir(parents=True)
            (kernel / "k.cubin").write_bytes(b"x" * 100)
            os.utime(kernel / "k.cubin", (2000 + 10 * k + f, 2000 + 10 * k + f))
    assert prune_triton(limit=500) == 2  # 600 bytes down to 400 <= 400
    left = sorted(
        str(p.relative_to(tmp_path / "cache" / "triton")) for p in (tmp_path / "cache" / "triton").glob("*/*")
    )
    assert left == ["file0/kernel1", "file0/kernel2", "file1/kernel1", "file1/kernel2"]


def test_a_module_found_on_another_search_path_is_not_served_from_cache(tmp_path, monkeypatch):
    """A run that stopped at "No module named 'kernels_lib'" depends on where imports are
    searched; with the module's folder on PYTHONPATH the next run imports it and compiles,
    instead of being served the failure (a corpus driver run first without its PYTHONPATH)."""
    lib = tmp_path / "lib"
    lib.mkdir()
    (lib / "kernels_lib.py").write_text(
        "import triton\nimport triton.language as tl\n\n\n@triton.jit\ndef copy_kernel(x, y, n, BLOCK: tl.constexpr):\n"
        "    o = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)\n"
        "    tl.store(y + o, tl.load(x + o, mask=o < n), mask=o < n)\n"
    )
    path = tmp_path / "driver.py"
    path.write_text(
        "import torch\nfrom kernels_lib import copy_kernel\n\n"
        'x = torch.randn(1000, device="cuda")\ny = torch.empty_like(x)\n'
        "copy_kernel[(1,)](x, y, x.numel(), BLOCK=1024)\n"
    )
    monkeypatch.setenv("KX_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("PYTHONPATH", raising=False)
    request = CompileRequest(str(path), target="cuda:90")
    missing = compile_file(request)
    assert not missing.kernels and any("kernels_lib" in d.message for d in missing.diagnostics)
    monkeypatch.setenv("PYTHONPATH", str(lib))
    found = compile_file(request)
    assert not found.from_cache and [k.name for k in found.kernels] == ["copy_kernel"]
    assert compile_file(request).from_cache  # the same search path: served again

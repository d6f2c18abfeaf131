"""A Triton cache folder and a dump folder, recorded from real compiles, open as kernels whose
stages are the folder's files and whose resources are what the cubin says."""

from __future__ import annotations

import json

import pytest
from records_testing import (
    CACHE,
    DUMP,
    GPU_CACHE,
    GPU_DUMP,
    KERNEL_FILE,
    RES_USAGE_RE,
    TRACE,
    copy_of,
    kernel_dirs,
)

from kx_core.base.tools import find_tool, run_tool
from kx_core.compile.artifacts.derived import with_derived
from kx_core.compile.artifacts.sass import disassemble
from kx_core.recorded.open_record import open_record, record_kind

STAGE_SUFFIXES = ("ttir", "ttgir", "llir", "ptx", "sass")


def _files_by_kernel(folder):
    """kernel name -> {suffix: path} of one kernel folder per kernel, as written."""
    out = {}
    for sub in kernel_dirs(folder):
        for f in sub.iterdir():
            stem, _, suffix = f.name.rpartition(".")
            if not stem.startswith("__grp__"):
                out.setdefault(stem, {})[suffix] = f
    # a real run's cache also holds Triton's compiled launcher and cuda_utils (.so): no kernels
    return {name: files for name, files in out.items() if "cubin" in files}


def _cuobjdump_usage(cubin: bytes) -> tuple[int, int]:
    if find_tool("cuobjdump") is None:
        pytest.skip("no cuobjdump (it comes with the triton wheel)")
    m = RES_USAGE_RE.search(run_tool(find_tool("cuobjdump"), ["-res-usage"], 60, data=cubin, suffix=".cubin"))
    return int(m.group(1)), int(m.group(2))


@pytest.mark.parametrize(
    "folder,kind",
    [(CACHE, "triton-cache"), (DUMP, "triton-dump"), (GPU_CACHE, "triton-cache"), (GPU_DUMP, "triton-dump")],
    ids=["cache", "dump", "h200-cache", "h200-dump"],  # Triton 3.8 compile-only; 3.6 real launches
)
def test_every_kernel_and_stage_of_the_folder(folder, kind):
    opened = open_record(str(folder))
    assert opened.kind == kind
    files = _files_by_kernel(folder)
    assert sorted(k.name for k in opened.result.kernels) == sorted(files)
    for k in opened.result.kernels:
        mine = files[k.name]
        expected = {s: mine[s].read_text() for s in STAGE_SUFFIXES if s in mine}
        assert k.stages == expected  # every stage file, as written, and nothing else
        assert sorted(k.metadata.extra["record_stages"]) == sorted(expected)
        cubin = mine["cubin"].read_bytes()
        registers, static_shared = _cuobjdump_usage(cubin)
        assert k.metadata.registers == registers
        assert k.source_file == str(KERNEL_FILE) or k.source_file.endswith("record_kernels.py")
        if kind == "triton-cache":
            meta = json.loads(mine["json"].read_text())
            assert (k.metadata.num_warps, k.metadata.num_stages, k.metadata.shared, k.metadata.hash) == (
                meta["num_warps"],
                meta["num_stages"],
                meta["shared"],
                meta["hash"],
            )
            assert k.target.spec == f"{meta['target']['backend']}:{meta['target']['arch']}"
            assert opened.result.triton_version == meta["triton_version"]
        else:  # no metadata file: TTGIR's attributes and the cubin's static shared size
            assert f'"ttg.num-warps" = {k.metadata.num_warps} : i32' in k.stages["ttgir"]
            assert k.metadata.shared == static_shared
            # a figure of another notion than a cache's (Triton's dynamic `shared`): said so
            assert any("not Triton's dynamic shared memory" in n for n in k.metadata.extra["notes"])
            assert f'ttg.target = "{k.target.spec}"' in k.stages["ttgir"]
    assert opened.result.exit_status == 0 and not opened.result.diagnostics


def test_missing_sass_is_derived_from_the_cubin_and_labelled():
    opened = open_record(str(CACHE))
    files = _files_by_kernel(CACHE)
    assert all("sass" not in k.stages for k in opened.result.kernels)  # a cache holds no SASS
    derived = with_derived(opened.result)
    for k in derived.kernels:
        assert "sass" in k.metadata.extra["derived_stages"]
        assert k.stages["sass"] == disassemble(files[k.name]["cubin"].read_bytes())
    # a dump folder's SASS is the record's own (Triton wrote it): not derived
    dump = open_record(str(DUMP))
    assert all("sass" not in k.metadata.extra["derived_stages"] for k in dump.result.kernels)


def test_kinds_are_read_from_the_content_not_the_name(tmp_path):
    renamed = tmp_path / "not_named_cache"
    copy_of(CACHE, tmp_path).rename(renamed)
    assert record_kind(str(renamed)) == "triton-cache"
    one_kernel = kernel_dirs(renamed)[0]
    assert record_kind(str(one_kernel)) == "triton-cache"  # a single hash folder
    assert len(open_record(str(one_kernel)).result.kernels) == 1
    odd = tmp_path / "trace.txt"
    odd.write_bytes(TRACE.read_bytes())
    assert record_kind(str(odd)) == "tritonparse"
    assert record_kind(str(KERNEL_FILE)) is None
    empty = tmp_path / "empty"
    empty.mkdir()
    assert record_kind(str(empty)) is None


def test_a_damaged_cache_says_where_and_reads_the_rest(tmp_path):
    cache = copy_of(CACHE, tmp_path)
    add, softmax = (_files_by_kernel(cache)[n] for n in ("add_vectors", "softmax_rows"))
    meta = add["json"]
    meta.write_text(meta.read_text()[: len(meta.read_text()) // 2])  # a truncated metadata file
    softmax["ptx"].unlink()  # a group file that lists a file the folder lacks
    opened = open_record(str(cache))
    assert sorted(k.name for k in opened.result.kernels) == ["add_vectors", "softmax_rows"]
    by_file = {d.file: d for d in opened.result.diagnostics}
    assert str(meta) in by_file and "not JSON" in by_file[str(meta)].message
    group = str(softmax["ttir"].parent / "__grp__softmax_rows.json")
    assert group in by_file and "softmax_rows.ptx" in by_file[group].message
    (sm,) = [k for k in opened.result.kernels if k.name == "softmax_rows"]
    assert "ptx" not in sm.stages and sm.stages["ttgir"] == softmax["ttgir"].read_text()
    assert all(d.kind == "record" for d in opened.result.diagnostics)
    assert opened.result.exit_status == 1


def test_a_metadata_file_of_another_shape_is_read_in_part(tmp_path):
    cache = copy_of(CACHE, tmp_path)
    meta = _files_by_kernel(cache)["add_vectors"]["json"]
    doc = json.loads(meta.read_text())
    doc.pop("target")
    doc["triton_version"] = "9.9.9"  # a version kx has not seen, writing another shape
    meta.write_text(json.dumps(doc))
    opened = open_record(str(cache))
    (d,) = opened.result.diagnostics
    assert d.file == str(meta) and "target" in d.message and "9.9.9" in d.message
    (add,) = [k for k in opened.result.kernels if k.name == "add_vectors"]
    assert add.target.spec == "cuda:90"  # from the TTGIR's ttg.target instead
    assert add.metadata.num_warps == doc["num_warps"]


def test_kx_open_prints_a_derived_stage_labelled(capsys):
    from kx_core.cli.commands import main as kx_main

    assert kx_main(["open", str(CACHE), "--stage", "sass", "--kernel", "add_vectors"]) == 0
    out = capsys.readouterr().out
    assert "add_vectors (derived by kx from the cubin)" in out.splitlines()[0]
    files = _files_by_kernel(CACHE)["add_vectors"]
    assert disassemble(files["cubin"].read_bytes()).strip() in out
    assert kx_main(["open", str(DUMP), "--stage", "sass", "--kernel", "add_vectors"]) == 0
    out = capsys.readouterr().out  # the dump's own SASS, as Triton wrote it: not labelled
    assert "derived" not in out
    assert _files_by_kernel(DUMP)["add_vectors"]["sass"].read_text().strip() in out

"""Nothing stale, nothing corrupt served (issue 30, row 5): the result cache knows the
files and environment variables the run read; an entry is served only when its digest
and types check; a corrupt artifact in kx's Triton cache or its SASS cache is rebuilt;
--no-cache uses no cached artifact at all."""

from __future__ import annotations

import base64
import json

from kx_core.compile import CompileRequest, compile_file
from kx_core.compile.artifacts import sass
from kx_core.compile.jobs import cache
from kx_testing import KERNELS

READS_CONFIG = """\
import json, os
BLOCK = json.load(open(os.path.join(os.path.dirname(__file__), "cfg.json")))["block"]
"""
READS_ENV = """\
import os
BLOCK = int(os.environ.get("KX_TEST_BLOCK", "1024"))
"""


def _file(tmp_path, prelude: str):
    """vector_add with its block size read from somewhere else than its own text."""
    text = (KERNELS / "vector_add.py").read_text()
    text = prelude + text.replace("BLOCK_SIZE=1024", "BLOCK_SIZE=BLOCK")
    assert "BLOCK_SIZE=BLOCK" in text
    path = tmp_path / "vector_add.py"
    path.write_text(text)
    return str(path)


def _grid(result) -> tuple:
    (kernel,) = [k for k in result.kernels if k.status == "compiled"]
    return tuple(kernel.launch.grid)


def _compile(path: str, **fields):
    return compile_file(CompileRequest(path, target="cuda:90", **fields))


def test_a_changed_data_file_is_a_new_compile(tmp_path):
    path = _file(tmp_path, READS_CONFIG)
    (tmp_path / "cfg.json").write_text('{"block": 1024}')
    first = _compile(path)
    assert _compile(path).from_cache
    (tmp_path / "cfg.json").write_text('{"block": 256}')
    second = _compile(path)
    # a quarter of the block: about four times the programs (the grid is a ceiling)
    assert not second.from_cache and 4 * _grid(first)[0] - 3 <= _grid(second)[0] <= 4 * _grid(first)[0]


def test_a_changed_environment_variable_is_a_new_compile(tmp_path, monkeypatch):
    path = _file(tmp_path, READS_ENV)
    monkeypatch.setenv("KX_TEST_BLOCK", "1024")
    first = _compile(path)
    assert _compile(path).from_cache
    monkeypatch.setenv("KX_TEST_BLOCK", "512")
    second = _compile(path)
    assert not second.from_cache and 2 * _grid(first)[0] - 1 <= _grid(second)[0] <= 2 * _grid(first)[0]
    monkeypatch.setenv("KX_TEST_BLOCK", "1024")  # one entry per key: the 512 one replaced it
    back = _compile(path)
    assert not back.from_cache and _grid(back) == _grid(first)


def test_an_entry_with_wrong_types_is_not_served(tmp_path):
    path = tmp_path / "vector_add.py"
    path.write_text((KERNELS / "vector_add.py").read_text())
    first = _compile(str(path))
    entries = list((cache.cache_dir() / "results").glob("*.json"))
    (entry_path,) = [p for p in entries if json.loads(p.read_text())["result"]["file"] == str(path)]
    entry = json.loads(entry_path.read_text())
    entry["result"]["kernels"][0]["metadata"]["registers"] = "many"  # parses, wrong type
    entry["digest"] = cache._digest(entry["result"])  # only the type check can catch it
    entry_path.write_text(json.dumps(entry))
    again = _compile(str(path))
    assert not again.from_cache and again.kernels[0].metadata.registers == first.kernels[0].metadata.registers
    # an entry edited by hand (its digest no longer matches) is not served either
    entry = json.loads(entry_path.read_text())
    entry["result"]["kernels"][0]["metadata"]["registers"] = 1
    entry_path.write_text(json.dumps(entry))
    assert not _compile(str(path)).from_cache


def _cubins(path: str):
    return list(cache.triton_cache_for(path).rglob("*.cubin"))


def test_a_corrupt_cubin_in_tritons_cache_is_rebuilt(tmp_path):
    path = tmp_path / "vector_add.py"
    path.write_text((KERNELS / "vector_add.py").read_text())
    first = _compile(str(path))
    registers = first.kernels[0].metadata.registers
    assert registers and _cubins(str(path))
    for cubin in _cubins(str(path)):
        cubin.write_bytes(b"\x7fELF truncated")
    # no cached artifact at all: the corrupt cubin is not even read
    fresh = compile_file(CompileRequest(str(path), target="cuda:90"), use_cache=False)
    assert fresh.kernels[0].metadata.registers == registers
    # a result-cache miss that reaches Triton's cache: the bad cubin is a miss, rebuilt
    path.write_text(path.read_text() + "\n# an edit outside the kernel\n")
    rebuilt = _compile(str(path))
    assert not rebuilt.from_cache and rebuilt.kernels[0].metadata.registers == registers
    cubin = base64.b64decode(rebuilt.kernels[0].binaries["cubin"])
    assert cubin.startswith(b"\x7fELF") and len(cubin) > 1000
    assert all(c.read_bytes() != b"\x7fELF truncated" for c in _cubins(str(path)))


def test_an_edited_sass_cache_file_is_disassembled_again(tmp_path):
    result = _compile(str(KERNELS / "vector_add.py"))
    cubin = base64.b64decode(result.kernels[0].binaries["cubin"])
    text = sass.disassemble(cubin)
    (cached,) = [p for p in (cache.cache_dir() / "sass").glob("*.sass") if sass._checked(p) == text]
    cached.write_text(cached.read_text().replace("EXIT", "NOP "))
    assert sass.disassemble(cubin) == text and "EXIT" in text

"""The binaries a sweep's compile side hands to its measuring workers (kx_core.sweep.
binaries): each config's group as Triton's cache holds it, installed through Triton's own
cache manager elsewhere; the oracle is Triton itself: a plain process (no kx capture)
compiling the record's specialization with `triton.compile` finds the shipped kernel
under its own cache key (a cache hit, the same cubin), and a damaged shipment is refused."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path

import pytest

from kx_core.sweep.binaries import collect, digest_of, folder_name, install, read_group, served
from kx_core.sweep.compile_side import compile_shape
from kx_core.sweep.request import SweepRequest
from kx_core.sweep.space import parse_space
from kx_testing import ROOT

MATMUL = str(ROOT / "fixtures" / "kernels" / "sweep" / "matmul.py")
SPACE = parse_space("BLOCK_M=64,128;BLOCK_N=64;BLOCK_K=32;GROUP_M=8;num_warps=4;num_stages=3")


@pytest.fixture(scope="module")
def compiled(tmp_path_factory):
    from kx_core.compile import CompileRequest, compile_file
    from kx_core.compile.jobs.cache import triton_cache_for
    from kx_core.sweep.driver import script

    folder = tmp_path_factory.mktemp("driver")
    req = SweepRequest(
        MATMUL, "matmul_kernel", ({"M": 512, "N": 512, "K": 256},), tuple(SPACE), target="cuda:90"
    )
    case, binaries = compile_shape(req, req.shapes[0], str(folder))
    # the same driver again (a result-cache hit): its records, for the cubins to compare
    path = folder / "kx_sweep_driver.py"
    path.write_text(script(MATMUL, "matmul_kernel", None, req.shapes[0], [s for s in SPACE]))
    result = compile_file(CompileRequest(str(path), target="cuda:90"))
    records = {k.config.label: k for k in result.kernels if k.name == "matmul_kernel"}
    assert collect(result, "matmul_kernel", triton_cache_for(str(path))) == binaries
    return case, binaries, records


def test_every_compiled_config_has_its_binary(compiled):
    case, binaries, records = compiled
    assert (
        case.error is None
        and sorted(binaries) == sorted(f.label for f in case.configs)
        and len(binaries) == 2
    )
    for label, b in binaries.items():
        assert b.key == records[label].metadata.hash and Path(b.folder).name == folder_name(b.key)
        files = read_group(Path(b.folder), b.name)
        assert {f"{b.name}.json", f"{b.name}.cubin", f"{b.name}.ptx"} <= set(files)
        assert not any(n.endswith(".kxsum") or n.startswith("__grp__") for n in files)
        assert digest_of(files) == b.digest
    assert len({b.digest for b in binaries.values()}) == 2  # two configs, two kernels


def test_an_installed_binary_is_what_triton_loads_and_a_damaged_one_is_refused(
    compiled, tmp_path, monkeypatch
):
    _, binaries, records = compiled
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    label, b = sorted(binaries.items())[0]
    files = read_group(Path(b.folder), b.name)
    assert served(b.key, b.name) is None
    assert install(b.key, b.name, files, b.digest) == "installed"
    assert install(b.key, b.name, files, b.digest) == "present"
    assert served(b.key, b.name) == base64.b64decode(records[label].binaries["cubin"])
    # one byte of another config's cubin changed in transit: nothing written
    _, other = sorted(binaries.items())[1]
    bad = read_group(Path(other.folder), other.name)
    cubin = bytearray(bad[f"{other.name}.cubin"])
    cubin[100] ^= 0xFF
    bad[f"{other.name}.cubin"] = bytes(cubin)
    assert install(other.key, other.name, bad, other.digest) == "damaged"
    assert served(other.key, other.name) is None


_PLAIN = """
import importlib.util, json, sys
sys.path.insert(0, {root!r})
from triton.backends.compiler import GPUTarget
from kx_core.compile.capturing.replay import replay
from kx_core.records.results import Specialization
from kx_core.sweep.binaries import Compiles
spec_ = importlib.util.spec_from_file_location("matmul_fixture", {file!r})
module = importlib.util.module_from_spec(spec_)
spec_.loader.exec_module(module)
fn = module.matmul_kernel.fn
out = []
for s in json.loads({specs!r}):
    seen = Compiles("matmul_kernel")
    seen.start()
    k = replay(fn, Specialization.from_json(s), GPUTarget("cuda", 90, 32))
    seen.stop()
    out.append({{"hash": k.hash, "hits": sorted(seen.hits), "compiled": sorted(seen.compiled),
                "cubin": k.asm["cubin"].hex()}})
print(json.dumps(out))
"""


def test_triton_in_a_plain_process_finds_the_shipped_kernels_under_its_own_key(compiled, tmp_path):
    """No kx capture in the child: Triton computes its own cache key for each record's
    specialization and is served the shipped binary (a cache hit, nothing compiled)."""
    _, binaries, records = compiled
    cache = tmp_path / "plain-cache"
    env_cache = {"TRITON_CACHE_DIR": str(cache)}
    import os

    child_env = {**os.environ, **env_cache}
    labels = sorted(binaries)
    installer = (
        "import json,sys\nfrom pathlib import Path\nfrom kx_core.sweep.binaries import install, read_group\n"
        "for b in json.loads(sys.argv[1]):\n"
        "    print(install(b['key'], b['name'], read_group(Path(b['folder']), b['name']), b['digest']))\n"
    )
    shipped = json.dumps([binaries[x].to_json() for x in labels])
    done = subprocess.run([sys.executable, "-c", installer, shipped], env=child_env, capture_output=True,
                          text=True, cwd=str(ROOT), check=True)  # fmt: skip
    assert done.stdout.split() == ["installed", "installed"]
    specs = json.dumps([records[x].specialization.to_json() for x in labels])
    code = _PLAIN.format(root=str(ROOT), file=MATMUL, specs=specs)
    run = subprocess.run(
        [sys.executable, "-c", code], env=child_env, capture_output=True, text=True, check=True
    )
    out = json.loads(run.stdout.strip().splitlines()[-1])
    for label, got in zip(labels, out):
        assert got["hash"] == binaries[label].key, label  # Triton's key is the compile side's
        assert got["hits"] == [got["hash"]] and got["compiled"] == []
        assert bytes.fromhex(got["cubin"]) == base64.b64decode(records[label].binaries["cubin"])


def test_a_binary_gone_or_damaged_is_said_and_not_installed(compiled, tmp_path, monkeypatch):
    from kx_core.sweep import measure

    _, binaries, _ = compiled
    monkeypatch.setenv("TRITON_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(measure, "_RECEIVED", {})
    a, b = (binaries[x].to_json() for x in sorted(binaries))
    gone = {**a, "folder": str(tmp_path / "pruned")}
    files = read_group(Path(b["folder"]), b["name"])
    damaged = {**b, "folder": "", "files": {**files, f"{b['name']}.json": b"{}"}}
    keys, problems = measure.receive([gone, damaged])
    assert keys == set() and len(problems) == 2
    assert "gone from the compile side's cache" in problems[0] and "damaged" in problems[1]
    assert served(a["key"], a["name"]) is None and served(b["key"], b["name"]) is None
    keys, problems = measure.receive([a])  # the real one arrives once, then is known
    assert keys == {a["key"]} and problems == [] and list(measure._RECEIVED) == [a["digest"]]

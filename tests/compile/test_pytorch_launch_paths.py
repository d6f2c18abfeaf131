"""PyTorch's own ways of launching Triton under capture (issue 28): ops behind
torch.library, torch.compile and Inductor's output modules, torch._dynamo imports, the
autotuner's state after a launch, library-mode launch options, and a capture that says
what it did not capture. Each case is a small file written here in a pattern real files
use; the kernels a real run launches must be the kernels kx records."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

from kx_core.compile import CompileRequest, compile_file
from kx_core.ir.sourcemap import build_source_map
from kx_testing import ROOT

HEADER = """\
import torch
import triton
import triton.language as tl


@triton.jit
def scale(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) * 2, mask=offs < n)
"""


def run(tmp_path, body: str, name: str = "case.py", **fields):
    f = tmp_path / name
    f.write_text(HEADER + textwrap.dedent(body))
    fields.setdefault("target", "cuda:90")
    return compile_file(CompileRequest(str(f), **fields), use_cache=False)


def blocks(result, name: str = "scale") -> list[int]:
    return sorted(k.launch.constexprs["BLOCK"] for k in result.kernels if k.name == name and k.launch)


def test_ops_behind_torch_library_run_their_gpu_implementation(tmp_path):
    """custom_op (device_types cuda, or none) with register_fake, triton_op + wrap_triton,
    Library.impl(..., "CUDA") + register_fake: on a GPU each runs its implementation,
    which launches the kernel; the fake never launches anything."""
    r = run(
        tmp_path,
        """
        from torch.library import triton_op, wrap_triton

        def launch(x, block):
            y = torch.empty_like(x)
            scale[(triton.cdiv(x.numel(), block),)](x, y, x.numel(), BLOCK=block)
            return y

        @torch.library.custom_op("kxt::double", mutates_args=(), device_types="cuda")
        def double(x: torch.Tensor) -> torch.Tensor:
            return launch(x, 256)

        @double.register_fake
        def _(x):
            return torch.empty_like(x)

        @torch.library.custom_op("kxt::double_any", mutates_args=())
        def double_any(x: torch.Tensor) -> torch.Tensor:
            return launch(x, 512)

        @double_any.register_fake
        def _(x):
            return torch.empty_like(x)

        @triton_op("kxt::double_t", mutates_args={})
        def double_t(x: torch.Tensor) -> torch.Tensor:
            y = torch.empty_like(x)
            wrap_triton(scale)[(triton.cdiv(x.numel(), 1024),)](x, y, x.numel(), BLOCK=1024)
            return y

        lib = torch.library.Library("kxt", "DEF")
        lib.define("double_l(Tensor x) -> Tensor")
        lib.impl("double_l", lambda x: launch(x, 128), "CUDA")

        @torch.library.register_fake("kxt::double_l")
        def _(x):
            return torch.empty_like(x)

        x = torch.randn(4096, device="cuda")
        outs = [double(x), double_any(x), double_t(x), torch.ops.kxt.double_l(x)]
        assert all(o.shape == x.shape and o.is_cuda for o in outs)
        """,
    )
    assert r.exit_status == 0, r.diagnostics
    assert blocks(r) == [128, 256, 512, 1024]


def test_torch_dynamo_submodules_import_under_capture(tmp_path):
    """What Inductor's output modules and Helion import (the stand-in used to be a module
    without __path__: "'torch._dynamo' is not a package")."""
    r = run(
        tmp_path,
        """
        import torch._dynamo.utils
        from torch._dynamo.testing import rand_strided

        x = rand_strided((64, 32), (1, 64), device="cuda:0", dtype=torch.float32)
        assert x.stride() == (1, 64) and x.is_cuda
        y = torch.empty_like(x)
        scale[(8,)](x, y, x.numel(), BLOCK=256)
        """,
    )
    assert r.exit_status == 0, r.diagnostics
    assert blocks(r) == [256]


def test_best_config_after_an_autotuned_launch_is_said_to_be_kxs_choice(tmp_path):
    r = run(
        tmp_path,
        """
        @triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (128, 256, 1024)], key=["n"])
        @triton.jit
        def tuned(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            tl.store(y_ptr + offs, tl.load(x_ptr + offs, mask=offs < n) + 1, mask=offs < n)

        x = torch.empty(8192, device="cuda")
        tuned[lambda m: (triton.cdiv(8192, m["BLOCK"]),)](x, x, 8192)
        (chosen,) = tuned.cache.values()  # the autotuner's state, as after a real run
        assert chosen is tuned.configs[0]
        block = tuned.best_config.kwargs["BLOCK"]
        scale[(triton.cdiv(8192, block),)](x, x, 8192, BLOCK=block)
        """,
    )
    # a launch after a read of best_config follows kx's choice: exit 5 (issue 50, item 5)
    assert r.exit_status == 5, r.diagnostics
    tuned = [k for k in r.kernels if k.name == "tuned"]
    assert sorted(k.config.index for k in tuned) == [0, 1, 2]
    (launched,) = [k for k in tuned if k.chosen]
    assert launched.config.index == 0 and "first" in launched.chosen
    (after,) = [k for k in r.kernels if k.name == "scale"]
    assert after.after_placeholder is not None and after.after_placeholder.what == "tuned.best_config"
    (d,) = [d for d in r.diagnostics if d.kind == "placeholder"]
    assert "autotuner's choice" in d.message and d.line is not None


def test_launch_options_apply_to_a_library_kernel_that_is_not_autotuned(tmp_path):
    f = tmp_path / "rows.py"
    f.write_text(HEADER)
    args = {"x_ptr": "fp32[4096]", "y_ptr": "fp32[4096]", "n": "4096", "BLOCK": "1024"}
    r = compile_file(
        CompileRequest(
            str(f), target="cuda:90", kernel="scale", args=args, grid="4", num_warps=16, num_stages=2
        ),
        use_cache=False,
    )
    (k,) = r.kernels
    assert (k.metadata.num_warps, k.metadata.num_stages) == (16, 2), r.diagnostics
    r = compile_file(
        CompileRequest(str(f), target="cuda:90", kernel="scale", args=args | {"num_warps": "8"}, maxnreg=128),
        use_cache=False,
    )
    (k,) = r.kernels
    assert k.metadata.num_warps == 8 and k.metadata.extra["maxnreg"] == 128, r.diagnostics


def test_a_count_of_gpu_random_labels_against_a_sentinel_is_exact(tmp_path):
    r = run(
        tmp_path,
        """
        labels = torch.randint(0, 100, (4096,), device="cuda")
        n_valid = (labels != -100).sum().item()
        n_ignored = (labels == -100).sum().item()
        x = torch.empty(n_valid, device="cuda")
        scale[(triton.cdiv(n_valid, 256),)](x, x, n_valid, BLOCK=256)
        assert n_ignored == 0
        """,
    )
    (k,) = r.kernels
    # the labels are the GPU generator's own (gpu_draws: tests/compile/test_cuda_rng.py), so
    # the count is a real run's and the launch it sizes is no guess (it was a placeholder)
    assert k.launch.grid == (16, 1, 1) and r.exit_status == 0, r.diagnostics
    assert k.after_placeholder is None


def test_the_gpus_generator_is_seeded_as_on_a_gpu(tmp_path):
    """Dropout kernels take the CUDA generator's seed and philox offset as arguments, so
    their specialization depends on the values (seed 0 is divisible by 16)."""
    r = run(
        tmp_path,
        """
        @triton.jit
        def dropout(x_ptr, seed, offset, n, BLOCK: tl.constexpr):
            offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
            keep = tl.rand(seed, offset + offs) > 0.5
            tl.store(x_ptr + offs, tl.where(keep, tl.load(x_ptr + offs, mask=offs < n), 0.0), mask=offs < n)

        torch.manual_seed(0)
        gen = torch.cuda.default_generators[torch.cuda.current_device()]
        seed, offset = gen.initial_seed(), gen.get_offset()
        gen.set_offset(offset + 4)
        x = torch.empty(4096, device="cuda")
        dropout[(16,)](x, seed, offset, 4096, BLOCK=256)
        dropout[(16,)](x, seed, gen.get_offset(), 4096, BLOCK=256)
        """,
    )
    assert r.exit_status == 0, r.diagnostics
    specs = [k.specialization for k in r.kernels if k.name == "dropout"]
    # seed 0 and offset 0 are equal to... 0: divisible by 16; offset 4 is not
    assert len(specs) == 2 and specs[0].attrs != specs[1].attrs


def test_imported_kernels_never_launched_are_named_and_nothing_launched_exits_four(tmp_path):
    lib = tmp_path / "mylib"
    lib.mkdir()
    (lib / "__init__.py").write_text("")
    (lib / "kern.py").write_text(HEADER)
    (tmp_path / "uses.py").write_text(
        "import torch\nfrom mylib.kern import scale\nx = torch.empty(16, device='cuda')\n"
    )
    r = compile_file(
        CompileRequest(str(tmp_path / "uses.py"), target="cuda:90", cwd=str(tmp_path)), use_cache=False
    )
    kinds = {d.kind: d for d in r.diagnostics}
    assert "not-launched" in kinds and "scale" in kinds["not-launched"].message
    assert r.exit_status == 4 and r.incomplete and "no-launch" in kinds


MLP = """
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(256, 512)
        self.fc2 = nn.Linear(512, 256)
        self.norm = nn.LayerNorm(256)

    def forward(self, x):
        h = torch.nn.functional.gelu(self.fc1(x))  # GELU
        h = self.fc2(h)
        return self.norm(x + h)  # NORM


model = torch.compile(Block().cuda())
x = torch.randn(32, 256, device="cuda")
with torch.no_grad():
    y = model(x)
assert y.shape == x.shape and y.is_cuda
"""


def test_torch_compile_captures_every_config_of_every_inductor_kernel(tmp_path):
    f = tmp_path / "mlp.py"
    f.write_text(MLP)
    r = compile_file(CompileRequest(str(f), target="cuda:90"), use_cache=False)
    assert r.exit_status == 0, r.diagnostics
    names = {k.name for k in r.kernels}
    assert any(n.startswith("triton_poi_fused") for n in names), names
    assert any("layer_norm" in n for n in names), names
    for name in names:
        configs = [k for k in r.kernels if k.name == name]
        assert all(k.config is not None and k.metadata.hash for k in configs)
        assert len({k.metadata.hash for k in configs}) == len(configs)
        launched = [k for k in configs if k.launch and not k.launch.warmup]
        assert launched, name  # the file's call launched each kernel
    tuned = [k for k in r.kernels if k.chosen]
    assert tuned and all("Inductor" in k.chosen for k in tuned)


def test_a_torch_compile_kernel_links_to_the_model_lines_it_was_generated_from(tmp_path):
    """Inductor's graph nodes carry the stack trace of the op they came from: each
    kernel's stages link to those lines of the script (kernel-wide), and only to them."""
    f = tmp_path / "mlp.py"
    f.write_text(MLP)
    r = compile_file(CompileRequest(str(f), target="cuda:90"), use_cache=False)
    lines = MLP.splitlines()
    gelu, norm = (next(i + 1 for i, t in enumerate(lines) if t.endswith(m)) for m in ("# GELU", "# NORM"))
    forward = set(range(gelu, norm + 1))
    by_kernel = {}
    for k in r.kernels:
        ((generated, origin),) = k.source_origins.items()
        assert generated == k.source_file and set(origin) <= forward, (k.name, origin)
        by_kernel.setdefault(k.name, set()).update(origin)
        smap = build_source_map(k.stages, str(f), k.source_alias, k.source_origins)
        for line in origin:  # every located IR line of the kernel stands for its model lines
            assert smap.ir_lines(line)["ttgir"] == smap.ir_lines(origin[0])["ttgir"]
    (gelu_kernel,) = [n for n in by_kernel if "gelu" in n]
    (norm_kernel,) = [n for n in by_kernel if "layer_norm" in n]
    assert by_kernel[gelu_kernel] == {gelu}
    assert norm in by_kernel[norm_kernel] and gelu not in by_kernel[norm_kernel]


# Imports the kernel modules of Inductor output modules the way Inductor's runtime does,
# without kx, and prints the configs each CachingAutotuner was built with: Inductor's own
# answer to "which configs does this kernel compile" (no GPU needed: nothing compiles).
# Every module in one process: importing Inductor is most of a run.
_CONFIGS_OF = r"""
import json, re, sys, types
from torch._inductor.codecache import PyCodeCache
from torch._inductor.runtime import triton_helpers
triton_helpers.set_driver_to_gpu = lambda: None
every = {}
for path in sys.argv[1:]:
  text = open(path).read()
  out = every[path] = {}
  for name, src in re.findall(r"^(\w+) = async_compile\.triton\('\w+', '''(.*?)'''", text, re.M | re.S):
    mod = PyCodeCache.load(src)
    tuner = next(v for v in vars(mod).values() if type(v).__name__ == "CachingAutotuner")
    out[tuner.fn.__name__] = sorted(json.dumps(c.kwargs, sort_keys=True) for c in tuner.configs)
print(json.dumps(every))
"""


def test_an_inductor_output_module_compiles_every_config_its_autotuners_list(tmp_path):
    """fixtures/inductor/*.py are output_code.py modules Inductor wrote on the H200
    (scripts/record_inductor_output.py); Inductor's own heuristics say which configs each
    kernel has, and kx compiles exactly those; each kernel's lines are the module's."""
    modules = sorted((ROOT / "fixtures" / "inductor").glob("*_output_code.py"))
    assert modules
    p = subprocess.run(
        [sys.executable, "-c", _CONFIGS_OF, *map(str, modules)], capture_output=True, text=True, check=True
    )
    every = json.loads(p.stdout.strip().splitlines()[-1])
    for module in modules:
        expected = every[str(module)]
        r = compile_file(CompileRequest(str(module), target="cuda:90", cwd=str(tmp_path)), use_cache=False)
        assert not any(d.fatal or d.kind == "not-captured" for d in r.diagnostics), (
            module.name,
            r.diagnostics,
        )
        got: dict[str, list[str]] = {}
        for k in r.kernels:
            got.setdefault(k.name, []).append(json.dumps(k.config.kwargs, sort_keys=True))
        assert {n: sorted(v) for n, v in got.items()} == expected, module.name
        lines = module.read_text().splitlines()
        for k in r.kernels:
            assert k.source_file == str(module) and lines[k.source_line - 1].startswith(f"def {k.name}(")

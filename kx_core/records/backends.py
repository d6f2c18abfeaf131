"""What a backend and a stage are: the one table every stage list, tab set, lexer choice,
line parser and per-backend decision reads.

Adding a stage is one `Stage` here (in its backend's tuple) plus, where it is not Triton's
own asm key, the function that makes its text (`derive`, registered by the layer that can
run the tool). Adding a backend is one `Backend`. A target whose backend is not in the
table is an error (`UnknownBackend`), never CUDA's tabs.

    backend_of(Target("hip", "gfx942", 64)).stages  ->  (Triton (Helion), Gluon IR, TTIR, TTGIR, LLVM IR, AMDGCN)
                                    (the first two only for a Helion or Gluon kernel: optional)
    backend_of(Target("cuda", 90, 32)).arch_name(90)  ->  'sm_90'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable


@dataclass(frozen=True)
class Target(Jsonable):
    """A compile target: backend 'cuda' or 'hip', arch (90 or 'gfx942'), warp size.
    Here beside its backend's descriptor (`backend_of`), so that a record may ask the
    descriptor what a target's build is (results.py re-exports it)."""

    backend: str
    arch: int | str
    warp_size: int

    @property
    def spec(self) -> str:
        """The canonical spelling, e.g. 'cuda:90', 'hip:gfx942'."""
        return f"{self.backend}:{self.arch}"

    def __str__(self) -> str:
        return self.spec


@dataclass(frozen=True)
class Stage(Jsonable):
    """One stage: `name` is the key in CompiledKernel.stages (Triton's asm key where
    Triton makes it)."""

    name: str
    extension: str  # the file suffix of `kx compile --out`
    display_name: str
    order: int
    syntax: str  # pygments lexer alias, or kx's own lexer name ('mlir', 'sass')
    binary: bool = False
    # how its lines name source locations (kx_core.ir.sourcemap's parsers): 'mlir',
    # 'llvm', 'asm', 'sass'; '' = a stage with no line links
    locations: str = ""
    # where its text comes from: '' = Triton's asm dict (the compile record copies it);
    # otherwise the binary it is made from ('cubin'), by the deriver registered for it
    derived_from: str = ""
    # an IR stage the user may edit and run again from (bench.override, bench.profile)
    replaceable: bool = False
    # one of Triton's own IR stages (its asm dict's text: what a profile's heat and a
    # dump of a compiled kernel carry)
    triton_ir: bool = False
    # a step the code is lowered through (the Concepts pane's steps); False for a view
    # of the binary (ELF)
    lowering: bool = True
    # a tab only for the kernels that have it (Gluon IR: a Triton kernel has none)
    optional: bool = False

    @property
    def links(self) -> bool:
        """Whether its lines link to source lines and to the other stages' lines."""
        return bool(self.locations)


@dataclass(frozen=True)
class Backend(Jsonable):
    """One compile backend: its stages in pipeline order and what differs per backend."""

    name: str  # Target.backend
    display_name: str
    stages: tuple[Stage, ...]
    gpu: bool  # a GPU target (a CPU compile has no warps, occupancy or GPU table row)
    arch_prefix: str  # the GPU table's spelling of an arch: 'sm_' + '90'; '' for 'gfx942'
    compiler: str  # what the record's version names ('triton 3.6.0'); '' = the version is the name
    binary: str = ""  # the binary Triton writes ('cubin', 'hsaco')
    vendor: str = ""  # the GPU name's prefix a device reports ('NVIDIA', 'AMD Instinct')
    nvidia_smi: bool = False  # its GPUs answer nvidia-smi (the capture device fakes it)
    # how a user spells one of its targets (kx_core.records.target): group 1 is the arch
    spelling: str = ""
    # the archs the backend's compiler takes, when kx knows them without asking a tool
    # (CUDA's come from its ptxas at compile time: compile/jobs/target_support.py)
    archs: tuple[str, ...] = ()
    archs_tool: str = ""  # or the tool whose --help lists them ("ptxas")
    warp_size: int = 32
    menu: tuple[str, ...] = ()  # the archs the app's Target menu offers
    # the GPU table's rows (model/gpu.py SPECS keys) a capture for each arch stands for,
    # and the row an arch without one of its own is modelled on
    boards: tuple[tuple[str, str], ...] = ()
    nearest_board: str = ""
    # a compile runs the user's file (kx's capture, on tensors without data, so what the
    # file printed is a capture run's, not a real one's); False where a compiler only
    # reads it (g++: nothing of the file ran)
    runs_file: bool = True
    # how a kernel's instructions are counted (the Summary pane, `kx compile --summary`):
    # 'x86' = the mix of its asm stage's x86 instructions (kx_core.cpu.asm_mix); '' = the
    # GPU stages' counts (kx_core.ir.summary)
    instruction_mix: str = ""

    def target(self, spec: str) -> Target | None:
        """The target a spelling names on this backend, or None."""
        m = re.match(self.spelling, spec) if self.spelling else None
        if m is None:
            return None
        arch = m.group(1)
        return Target(self.name, int(arch) if arch.isdigit() else arch, self.warp_size)

    def arch_name(self, arch: int | str) -> str:
        """'sm_90' for 90 (cuda), 'gfx942' for 'gfx942' (hip): the GPU table's spelling."""
        return f"{self.arch_prefix}{arch}"

    def tool_label(self, version: str) -> str:
        """The compiler a result names: 'triton 3.6.0', or a C++ compiler's own version."""
        return f"{self.compiler} {version}" if self.compiler else version

    def stage(self, name: str) -> Stage | None:
        return next((s for s in self.stages if s.name == name), None)

    def board(self, arch: int | str) -> str:
        """The GPU table row a target of this arch is captured and modelled on."""
        return dict(self.boards).get(str(arch), self.nearest_board)


class UnknownBackend(ValueError):
    """A target whose backend kx has no descriptor for."""


# Triton's common stages: what every Triton backend compiles through.
# What Gluon's frontend writes, before Gluon's passes: TritonGPU IR with the source's own
# layouts (Triton's cache keeps it as NAME.source; compile/artifacts/kernel_record.py reads it)
GLUON = Stage("gluon", "gluon.mlir", "Gluon IR", -1, "mlir", locations="mlir", optional=True)
# The Triton code Helion generated for a kernel (a Python module; its `# src[...]`
# comments give each line's Helion source line: kx_core/ir/helion_src.py)
HELION = Stage("helion", "helion.py", "Triton (Helion)", -2, "python", locations="helion", optional=True)
# A CuTe DSL program's MLIR as the DSL traced it, before any pass (located in the source;
# CUTE_DSL_KEEP=ir-debug: compile/capturing/languages/cute_capture.py)
CUTE = Stage("cute", "cute.mlir", "CuTe IR", -3, "mlir", locations="mlir", optional=True)
# A TileLang program as TileLang traced it (TVM's TIR script) and the CUDA C it lowers it
# to, which nvcc compiles (compile/capturing/languages/tilelang_capture.py): no line links yet
TILELANG = Stage("tilelang", "tir.py", "TileLang TIR", -5, "python", optional=True)
CUDA_C = Stage("cudac", "cu", "CUDA C", -4, "cuda", optional=True)
TTIR = Stage("ttir", "ttir", "TTIR", 0, "mlir", locations="mlir", replaceable=True, triton_ir=True)
TTGIR = Stage("ttgir", "ttgir", "TTGIR", 1, "mlir", locations="mlir", replaceable=True, triton_ir=True)
LLIR = Stage("llir", "ll", "LLVM IR", 2, "llvm", locations="llvm", replaceable=True, triton_ir=True)
PTX = Stage("ptx", "ptx", "PTX", 3, "ptx", locations="asm", replaceable=True, triton_ir=True)
SASS = Stage("sass", "sass", "SASS", 4, "sass", locations="sass", derived_from="cubin")
# the cubin as cuobjdump reads it: its sections, symbols, and per-kernel resource usage
ELF = Stage("elf", "elf.txt", "ELF", 5, "text", derived_from="cubin", lowering=False)
AMDGCN = Stage("amdgcn", "amdgcn", "AMDGCN", 3, "gas", locations="asm", triton_ir=True)
# a C++ CPU kernel (kx_core.cpu): GCC's x86 assembly and its vectorization report
ASM = Stage("asm", "s", "Assembly", 0, "gas", locations="asm")  # .file/.loc as in AMDGCN
VECTORIZATION = Stage("vectorization", "vec", "Vectorization", 1, "text", locations="remark")

CUDA = Backend(
    "cuda",
    "CUDA",
    (TILELANG, CUDA_C, CUTE, HELION, GLUON, TTIR, TTGIR, LLIR, PTX, SASS, ELF),
    gpu=True,
    arch_prefix="sm_",
    compiler="triton",
    binary="cubin",
    vendor="NVIDIA",
    nvidia_smi=True,
    # Example: "cuda:90", "sm_80", "90"; "sm90a" is not accepted (Triton picks 90a itself for wgmma)
    spelling=r"^(?:cuda:|sm_?)?(\d{2,3})$",
    archs_tool="ptxas",
    menu=("80", "86", "89", "90", "100"),
    boards=(("80", "a100"), ("86", "rtx3070"), ("89", "rtx4090"), ("90", "h100")),
    nearest_board="h100",
    runs_file=True,
    instruction_mix="",
)
HIP = Backend(
    "hip",
    "ROCm",
    (HELION, GLUON, TTIR, TTGIR, LLIR, AMDGCN),
    gpu=True,
    arch_prefix="",
    compiler="triton",
    binary="hsaco",
    vendor="AMD Instinct",
    spelling=r"^(?:hip:)?(gfx[0-9a-f]+)$",  # Example: "hip:gfx942", "gfx90a"
    warp_size=64,
    # LLVM's AMDGPU processors from GCN 5 on (Triton's AMD backend lowers through LLVM)
    archs=(
        "gfx900",
        "gfx902",
        "gfx904",
        "gfx906",
        "gfx908",
        "gfx909",
        "gfx90a",
        "gfx90c",
        "gfx940",
        "gfx941",
        "gfx942",
        "gfx950",
        "gfx1010",
        "gfx1011",
        "gfx1012",
        "gfx1013",
        "gfx1030",
        "gfx1031",
        "gfx1032",
        "gfx1033",
        "gfx1034",
        "gfx1035",
        "gfx1036",
        "gfx1100",
        "gfx1101",
        "gfx1102",
        "gfx1103",
        "gfx1150",
        "gfx1151",
        "gfx1152",
        "gfx1153",
        "gfx1200",
        "gfx1201",
        "gfx1250",
    ),  # fmt: skip
    menu=("gfx942",),
    boards=(("gfx942", "mi300x"),),
    nearest_board="mi300x",  # not an NVIDIA board for an AMD target
    runs_file=True,
    instruction_mix="",
)
CPU = Backend(
    "cpu",
    "C++ (CPU)",
    (ASM, VECTORIZATION),
    gpu=False,
    arch_prefix="",
    compiler="",
    runs_file=False,  # g++ compiles the file; nothing of it runs
    instruction_mix="x86",
)

BACKENDS: dict[str, Backend] = {b.name: b for b in (CUDA, HIP, CPU)}
# every stage kx knows, each once, in a stable order (CLI choices, the IR-diff pane)
ALL_STAGES: dict[str, Stage] = {s.name: s for b in BACKENDS.values() for s in b.stages}


def backend_of(target: Target | str) -> Backend:
    """The descriptor of a target's backend (or of a backend's name)."""
    name = target if isinstance(target, str) else target.backend
    try:
        return BACKENDS[name]
    except KeyError:
        raise UnknownBackend(f"unknown backend {name!r}: kx knows {', '.join(BACKENDS)}") from None


def stages_for(target: Target | str) -> tuple[Stage, ...]:
    """The stages a compile for `target` produces, in pipeline order."""
    return backend_of(target).stages


def stage_names() -> list[str]:
    """Every stage name kx knows, in a stable order (for CLI choices)."""
    return list(ALL_STAGES)


def triton_ir_stages() -> tuple[str, ...]:
    """Triton's own IR stages, every backend's, in pipeline order."""
    return tuple(s.name for s in ALL_STAGES.values() if s.triton_ir)


def replaceable_stages() -> tuple[str, ...]:
    """The IR stages a user may edit and run again from, in pipeline order."""
    return tuple(s.name for s in ALL_STAGES.values() if s.replaceable)


def compiler_stages() -> tuple[str, ...]:
    """The text stages Triton's compile itself writes (its asm dict), every backend's."""
    return tuple(s.name for s in ALL_STAGES.values() if not s.derived_from and not s.binary and s.triton_ir)


def board_for_arch(arch: str) -> str:
    """The GPU table row (a SPECS key) for an arch in the table's spelling ('sm_90',
    'gfx90a'): its backend's board for it, else that backend's nearest; '' when no GPU
    backend spells it."""
    for backend in BACKENDS.values():
        if backend.gpu and (target := backend.target(arch)) is not None:
            return backend.board(target.arch)
    return ""

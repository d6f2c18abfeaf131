"""What a backend is, and its stages: the one table every stage list, tab set, lexer
choice, line parser and per-backend decision reads.

A backend's stages are those the kernel languages that compile for it add (each
language's `stages`, kx_core.records.languages), then its own (Triton's TTIR ... PTX,
SASS, ELF; or AMDGCN; or a C++ compiler's). Adding a backend stage is one `Stage` here
(in its backend's tuple; a language's goes in its descriptor) plus, where it is not
Triton's own asm key, the function that makes its text (`derive`, registered by the layer
that can run the tool). Adding a backend is one `Backend`. A target whose backend is not
in the table is an error (`UnknownBackend`), never CUDA's tabs.

    backend_of(Target("hip", "gfx942", 64)).stages  ->  (Triton (Helion), Gluon IR, TTIR, TTGIR, LLVM IR, AMDGCN)
                                    (the first two only for a Helion or Gluon kernel: optional)
    backend_of(Target("cuda", 90, 32)).arch_name(90)  ->  'sm_90'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.records.languages import stages_added_on
from kx_core.records.stages import Stage


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


# Triton's common stages: what every Triton backend compiles through. The stages a kernel
# language adds before them (Gluon IR, Helion's Triton, CuTe IR, TileLang's TIR and CUDA C)
# are its descriptor's (kx_core.records.languages): each backend's list starts with those
# of the languages that compile for it.
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
    (*stages_added_on("cuda"), TTIR, TTGIR, LLIR, PTX, SASS, ELF),
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
    (*stages_added_on("hip"), TTIR, TTGIR, LLIR, AMDGCN),
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
    (*stages_added_on("cpu"), ASM, VECTORIZATION),
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

"""What a kernel language is to kx: how a file is recognised, what captures its launches,
the stages it adds, the stage its compile starts at, whether its source spells layouts,
and what installs it. The one table the Welcome page, File ▸ Examples, the backends'
stage lists (kx_core.records.backends composes them), the source pane's layout links and
the worker's capture read; a new language is one `Language` here plus its capture module
(named by `capture_module`: the worker calls it, docs/adding_a_language.md). A language
from outside kx is `register`ed, or named in KX_LANGUAGES.

Some captures apply to every Python file, whatever its kernels are written in
(`every_file`): Inductor's output (torch.compile may be called anywhere, or in a library
the file imports), ops behind torch.library and TorchScript. They are never a file's
language.

    language_of(text, "k.py").name   ->  'gluon'  (a file with @gluon.jit kernels)
    language_of("", "add.cpp").name  ->  'cpp'
    BY_NAME["helion"].stages[0].name ->  'helion'  (the Triton code Helion generated)
"""

from __future__ import annotations

import importlib
import os
import re
from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable
from kx_core.records.stages import Stage

# the suffixes of a C++ kernel file (kx_core.cpu compiles them)
CPP_SOURCES = (".cpp", ".cc", ".cxx")


@dataclass(frozen=True)
class Language(Jsonable):
    name: str
    display_name: str
    # a regex over the file's text that marks it (its decorator); '' = by suffix only
    marker: str
    suffixes: tuple[str, ...]
    # how kx captures its launches: 'triton' (kx's capture of Triton launches, which a
    # Gluon launch is), 'cpp' (a C++ build), '' = kx cannot capture it yet
    capture: str
    first_stage: str  # the stage its compile starts at ('ttir'; Gluon's frontend emits TTGIR)
    source_layouts: bool  # layouts written in the source, each a link to the Layout pane
    module: str  # the import its kernels need ('' = none)
    extra: str  # the pip extra that installs it ('' = kx's own dependencies)
    versions: str  # the package versions kx is tested with
    example: str  # the bundled example, relative to kx_core/data/examples ('' = none yet)
    note: str = ""  # what a user is told when kx cannot yet do more
    # the backends (records/backends.py names) its compiler targets: a file of it compiled
    # for another backend runs without this language's capture (CuTe DSL and TileLang
    # compile for NVIDIA GPUs only)
    backends: tuple[str, ...] = ("cuda", "hip")
    # the module the worker calls for a file of it (a dotted path: records never import
    # the capture), with install(target, path), prepare(text, target) and finish(...),
    # each optional (kx_core/compile/capturing/languages/__init__.py); '' = kx's Triton
    # capture alone
    capture_module: str = ""
    # the stages it adds before Triton's (a tab each, optional: a kernel of another
    # language has none); each backend it `compiles_for` lists them, in `Stage.order`
    stages: tuple[Stage, ...] = ()
    # its capture applies to every Python file (the file's text need not mark it: a
    # library the file imports may call it), and it is never a file's language
    every_file: bool = False

    @property
    def install(self) -> str:
        """The command that installs this language for kx ('' = kx's own dependencies)."""
        return f"pip install 'kx[{self.extra}]'" if self.extra else ""

    def not_installed(self, error: str) -> str:
        """What a file of this language is told when its package cannot be imported: the
        language, the import's own error, and the command that installs it."""
        return f"{self.display_name} is not installed ({error}): {self.install}, then compile again"

    def compiles_for(self, backend: str) -> bool:
        """Whether its compiler targets this backend (a Target's `backend`)."""
        return backend in self.backends

    def marks(self, text: str) -> bool:
        """Whether the text carries this language's marker (its decorator), or the
        language applies to every file: whether its capture runs for the file."""
        if self.every_file:
            return True
        return bool(self.marker) and re.search(self.marker, text or "", re.MULTILINE) is not None

    def recognises(self, text: str, path: str) -> bool:
        """Whether the file is written in this language (language_of's question)."""
        if self.every_file or (self.suffixes and not path.lower().endswith(self.suffixes)):
            return False
        return not self.marker or self.marks(text)


def _pytorch_capture(
    name: str, display_name: str, module: str, versions: str, note: str, capture_module: str = ""
) -> Language:
    """A capture of something PyTorch ships (its ops' dispatch, TorchScript, Inductor): no
    file of its own (every_file), kernels compiled as Triton's, no extra to install. Its
    capture module is `capturing/languages/<name>.py` unless named."""
    return Language(
        name, display_name, marker="", suffixes=(".py",), capture="triton", first_stage="ttir",
        source_layouts=False, module=module, extra="", versions=versions, example="", note=note,
        backends=("cuda", "hip"),
        capture_module=capture_module or f"kx_core.compile.capturing.languages.{name}",
        every_file=True,
    )  # fmt: skip


# Most specific first: a Gluon or Helion file imports triton too, and so would match
# Triton's marker. The captures of every file come before Triton's (they never recognise
# a file; the worker installs them in this order).
LANGUAGES: tuple[Language, ...] = (
    Language(
        "gluon", "Gluon",
        # Example: "@gluon.jit", "@gluon.jit(do_not_specialize=['n'])"
        marker=r"^\s*@\s*(?:\w+\.)*gluon\.jit\b",
        suffixes=(".py",), capture="triton", first_stage="ttgir", source_layouts=True,
        module="triton.experimental.gluon", extra="", versions="Triton 3.6, 3.8 (Gluon ships in Triton)",
        example="gluon_transpose.py", backends=("cuda", "hip"),
        stages=(
            # What Gluon's frontend writes, before Gluon's passes: TritonGPU IR with the
            # source's own layouts (Triton's cache keeps it as NAME.source;
            # compile/artifacts/kernel_record.py reads it)
            Stage("gluon", "gluon.mlir", "Gluon IR", -1, "mlir", locations="mlir", optional=True),
        ),
    ),
    Language(
        "helion", "Helion",
        # Example: "@helion.kernel()", "@helion.kernel(config=helion.Config(block_sizes=[64]))"
        marker=r"^\s*@\s*helion\.kernel\b",
        # Helion launches the Triton kernel it generates through Triton: kx's capture sees
        # it (compile/capturing/languages/helion_capture.py), its module is the first stage
        suffixes=(".py",), capture="triton", first_stage="helion", source_layouts=False,
        module="helion", extra="helion", versions="helion 1.5",
        example="helion_rows.py",
        note="a kernel without config= is compiled at Helion's default config (a real run autotunes)",
        backends=("cuda", "hip"), capture_module="kx_core.compile.capturing.languages.helion_capture",
        stages=(
            # The Triton code Helion generated for a kernel (a Python module; its `# src[...]`
            # comments give each line's Helion source line: kx_core/ir/helion_src.py)
            Stage("helion", "helion.py", "Triton (Helion)", -2, "python", locations="helion", optional=True),
        ),
    ),
    Language(
        "cute", "CuTe DSL",
        # Example: "@cute.kernel", "@cute.jit"
        marker=r"^\s*@\s*cute\.(?:jit|kernel)\b",
        # the file runs as it is; what the DSL compiles is read from the artifacts it is
        # told to keep (compile/capturing/languages/cute_capture.py)
        suffixes=(".py",), capture="cute", first_stage="cute", source_layouts=False,
        module="cutlass.cute", extra="cute", versions="nvidia-cutlass-dsl 4.8",
        example="cute_add.py",
        note="programs compiled with cute.compile are shown; launching one needs a GPU",
        backends=("cuda",), capture_module="kx_core.compile.capturing.languages.cute_capture",
        stages=(
            # A CuTe DSL program's MLIR as the DSL traced it, before any pass (located in
            # the source; CUTE_DSL_KEEP=ir-debug: compile/capturing/languages/cute_capture.py)
            Stage("cute", "cute.mlir", "CuTe IR", -3, "mlir", locations="mlir", optional=True),
        ),
    ),
    Language(
        "tilelang", "TileLang",
        # Example: "@T.prim_func", "@tilelang.jit(out_idx=[-1])", "@tl.jit" (import tilelang as tl)
        marker=r"^\s*@\s*(?:T\.prim_func|(?:tilelang|tl)\.jit)\b",
        # the file runs as it is; TileLang's nvcc calls are watched and its CUDA C, PTX
        # and cubin kept (compile/capturing/languages/tilelang_capture.py)
        suffixes=(".py",), capture="tilelang", first_stage="tilelang", source_layouts=False,
        module="tilelang", extra="tilelang", versions="tilelang 0.1.15 (nvcc from pip's CUDA 13.0)",
        example="tilelang_gemm.py",
        note="kernels TileLang compiles are shown; calling one needs a GPU (its outputs are empty tensors)",
        backends=("cuda",), capture_module="kx_core.compile.capturing.languages.tilelang_capture",
        stages=(
            # A TileLang program as TileLang traced it (TVM's TIR script) and the CUDA C it
            # lowers it to, which nvcc compiles: no line links yet
            Stage("tilelang", "tir.py", "TileLang TIR", -5, "python", optional=True),
            Stage("cudac", "cu", "CUDA C", -4, "cuda", optional=True),
        ),
    ),
    # what PyTorch itself compiles or dispatches: a capture for every file, since a library
    # the file imports may use it (each module's docstring says how it captures)
    _pytorch_capture(
        "torch_library", "torch.library ops", "torch.library", "PyTorch (kx's own dependency)",
        # a library's Triton kernels behind an operator (custom_op, triton_op, Library.impl
        # for 'CUDA'): on capture tensors the dispatcher would call the op's fake; its GPU
        # implementation runs instead
        "applies to every file: an op may be registered by a library the file imports",
    ),
    _pytorch_capture(
        "torchscript", "TorchScript", "torch.jit", "PyTorch (kx's own dependency)",
        # a torch.jit.script function runs its Python under capture, so what it launches
        # is captured as the Python's would be
        "applies to every file: a library the file imports may script a function",
    ),
    _pytorch_capture(
        "inductor", "Inductor output", "torch._inductor", "PyTorch 2.11, 2.14 (Inductor ships in torch)",
        # torch.compile's kernels: Inductor generates Triton kernels and compiles them
        # through triton.compile, which kx's capture records
        "applies to every file: torch.compile may be called anywhere, or by a library the file imports",
        capture_module="kx_core.compile.capturing.languages.inductor_capture",
    ),
    Language(
        "triton", "Triton",
        # Example: "@triton.jit", "@triton.autotune(configs=[...])", "@jit"
        marker=r"^\s*@\s*(?:triton\.)?(?:jit|autotune|heuristics)\b",
        suffixes=(".py",), capture="triton", first_stage="ttir", source_layouts=False,
        module="triton", extra="", versions="Triton 3.6, 3.8",
        example="vector_add.py", backends=("cuda", "hip"),
    ),
    Language(
        "cpp", "C++ (CPU)", marker="", suffixes=CPP_SOURCES, capture="cpp", first_stage="asm",
        source_layouts=False, module="", extra="", versions="g++ / clang++ on PATH",
        example="cpu/rmsnorm_avx2.cpp", backends=("cpu",),
    ),
)  # fmt: skip
BY_NAME = {lang.name: lang for lang in LANGUAGES}
# a .py file with no kernel decorator kx knows: run as Triton (its launches say the rest)
PYTHON = BY_NAME["triton"]

# Languages from outside kx's table (`register`): recognised after kx's own and before
# Triton's marker (a file of one most likely imports triton too) and C++'s suffixes.
_REGISTERED: list[Language] = []
# Modules that each define LANGUAGE, a Language to register, separated by commas: read
# where the table is asked for, so the app and every worker (a warm worker's child takes
# the job's environment) see the same languages. Example: KX_LANGUAGES=my_dsl.kx_language
PLUGINS_ENV = "KX_LANGUAGES"
_PLUGINS_LOADED: set[str] = set()


def register(lang: Language) -> None:
    """Add a language to the table, as if it were one of kx's own (the worker calls its
    `capture_module` for a file it marks). Registering the same one again does nothing;
    another language under a name taken, or one that adds stages of its own, raises
    ValueError."""
    if BY_NAME.get(lang.name) == lang:
        return
    if lang.name in BY_NAME:
        raise ValueError(f"a language named {lang.name!r} is already registered")
    # said, not dropped: the backends' stage lists (the CLI's --stage choices, the tabs)
    # are composed from kx's own table when kx_core.records.backends is imported
    new = [s.name for s in lang.stages if s not in {s for own in LANGUAGES for s in own.stages}]
    if new:
        raise ValueError(f"a registered language cannot add stages yet ({', '.join(new)}): only kx's own do")
    _REGISTERED.append(lang)
    BY_NAME[lang.name] = lang


def _load_plugins() -> None:
    for name in os.environ.get(PLUGINS_ENV, "").split(","):
        name = name.strip()
        if name and name not in _PLUGINS_LOADED:
            _PLUGINS_LOADED.add(name)  # a module that fails says so once, not on every call
            register(importlib.import_module(name).LANGUAGE)


def languages() -> tuple[Language, ...]:
    """Every language kx knows, most specific first: kx's own, those registered (and
    those KX_LANGUAGES names), then Triton's catch-all marker and C++'s suffixes."""
    _load_plugins()
    if not _REGISTERED:
        return LANGUAGES
    cut = LANGUAGES.index(PYTHON)
    return (*LANGUAGES[:cut], *_REGISTERED, *LANGUAGES[cut:])


def stages_added_on(backend: str) -> tuple[Stage, ...]:
    """The stages kx's own languages add on a backend (each language's `stages`, where it
    `compiles_for` the backend), each once, in pipeline order (`Stage.order`): what a
    backend's stage list starts with, before its own (kx_core.records.backends)."""
    added = {s.name: s for lang in LANGUAGES if lang.compiles_for(backend) for s in lang.stages}
    return tuple(sorted(added.values(), key=lambda s: s.order))


def needing_extra(missing: str) -> Language | None:
    """The language installed by one of kx's extras whose package is the module that
    could not be imported (a ModuleNotFoundError's `name`: 'helion', 'cutlass',
    'cutlass.cute'), or None. A missing submodule of an installed package ('helion.foo')
    is not a missing extra."""
    if not missing:
        return None
    return next(
        (
            lang
            for lang in languages()
            if lang.extra and (lang.module == missing or lang.module.startswith(missing + "."))
        ),
        None,
    )


def language_of(text: str, path: str) -> Language:
    """The language of a file from its text and name (Triton for a Python file kx does
    not recognise otherwise: a launcher file that imports its kernels)."""
    for lang in languages():
        if lang.recognises(text, path):
            return lang
    return PYTHON

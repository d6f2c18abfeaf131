"""What a stage is: one text a compile shows (a tab, a `kx compile --out` file), with how
it is lexed, located and made. Here on its own so that both the languages that add stages
(kx_core.records.languages: Helion's generated Triton, CuTe IR, TileLang's TIR and CUDA C,
Gluon IR) and the backends whose stage lists are composed from them
(kx_core.records.backends: TTIR, TTGIR, ..., then SASS or AMDGCN) declare theirs.

    Stage("ttir", "ttir", "TTIR", 0, "mlir", locations="mlir").links  ->  True
"""

from __future__ import annotations

from dataclasses import dataclass

from kx_core.base.jsonable import Jsonable


@dataclass(frozen=True)
class Stage(Jsonable):
    """One stage: `name` is the key in CompiledKernel.stages (Triton's asm key where
    Triton makes it)."""

    name: str
    extension: str  # the file suffix of `kx compile --out`
    display_name: str
    # its place in the pipeline: a backend's stages are in this order (a language's come
    # before Triton's TTIR, at 0, and are negative)
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

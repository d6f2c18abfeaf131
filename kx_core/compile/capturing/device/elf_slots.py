"""Where a shared library's calls to functions of its own or of other libraries land: the
GOT slots its dynamic relocations name, read from the ELF file on disk.

A call from a shared library to an exported function goes through the library's global
offset table (a JUMP_SLOT relocation names the function), so the call is redirected by
writing that slot, for that library alone. Torch's libraries are built that way (no
-Bsymbolic): libtorch_cuda.so reaches even its own `at::cuda::getCurrentDeviceProperties`
through its table. Reading the file (64-bit little-endian ELF, its section headers) tells
which slot is which; the runtime address is the load base plus the slot's address, and the
base is any exported symbol's runtime address less its value in the file.

Qt-free and torch-free.
"""

from __future__ import annotations

import mmap
import struct
from dataclasses import dataclass

_SECTION = struct.Struct("<IIQQQQIIQQ")  # Elf64_Shdr
_SYMBOL = struct.Struct("<IBBHQQ")  # Elf64_Sym
_RELA = struct.Struct("<QQq")  # Elf64_Rela


@dataclass(frozen=True)
class Slots:
    """What `read_slots` found: the slots (file addresses) of each wanted function, and the
    file value of the anchor symbol (None where the file does not export it)."""

    slots: dict[str, tuple[int, ...]]
    anchor_value: int | None


def read_slots(path: str, wanted: set[str], anchor: str) -> Slots:
    """The GOT slots of the functions `wanted` in the ELF shared library `path` (from its
    .rela.plt and .rela.dyn sections) and the value of its exported symbol `anchor`.
    Raises OSError or ValueError where the file is not a 64-bit little-endian ELF with
    section headers."""
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
        if m[:4] != b"\x7fELF" or m[4] != 2 or m[5] != 1:
            raise ValueError(f"{path} is not a 64-bit little-endian ELF file")
        (shoff,) = struct.unpack_from("<Q", m, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", m, 0x3A)
        if not shoff or shstrndx >= shnum:
            raise ValueError(f"{path} has no section headers")
        sections = [_SECTION.unpack_from(m, shoff + i * shentsize) for i in range(shnum)]
        names_at = sections[shstrndx][4]
        by_name = {_c_string(m, names_at + s[0]): s for s in sections}
        if ".dynsym" not in by_name or ".dynstr" not in by_name:
            raise ValueError(f"{path} has no dynamic symbols")
        symbols_at, symbols_size = by_name[".dynsym"][4], by_name[".dynsym"][5]
        strings_at = by_name[".dynstr"][4]

        def symbol(index: int) -> tuple[str, int]:
            name, _info, _other, _shndx, value, _size = _SYMBOL.unpack_from(
                m, symbols_at + index * _SYMBOL.size
            )
            return _c_string(m, strings_at + name), value

        found: dict[str, list[int]] = {}
        for section in (".rela.plt", ".rela.dyn"):
            if section not in by_name:
                continue
            start, size = by_name[section][4], by_name[section][5]
            for at in range(start, start + size - _RELA.size + 1, _RELA.size):
                offset, info, _addend = _RELA.unpack_from(m, at)
                index = info >> 32
                if index:
                    name, _ = symbol(index)
                    if name in wanted:
                        found.setdefault(name, []).append(offset)
        anchor_value = None
        for index in range(1, symbols_size // _SYMBOL.size):
            name, value = symbol(index)
            if name == anchor and value:
                anchor_value = value
                break
    return Slots({k: tuple(v) for k, v in found.items()}, anchor_value)


def _c_string(m: mmap.mmap, at: int) -> str:
    end = m.find(b"\0", at)
    return m[at:end].decode("ascii", "replace")

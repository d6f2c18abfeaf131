"""What tells two records of one kernel apart, in a few words for a table cell.

Triton compiles a kernel again for each specialization (a pointer's or an integer's
divisibility by 16, an integer equal to 1, another dtype, another constexpr value); in
a list of records with the same name those look alike. `telling_apart(kernels)` gives,
for each record whose short name another record shares, the parts of its
specialization that differ within that group: "n_elements%16, x_ptr:fp16", "BLOCK=256".
"""

from __future__ import annotations

from collections import defaultdict

from kx_core.records.results import CompiledKernel


def _facts(kernel: CompiledKernel) -> dict[str, str]:
    """The specialization as name -> short words (type, constexpr value, attributes)."""
    spec = kernel.specialization
    if spec is None:
        return {}
    facts = {f"{name}:": ty for name, ty in spec.signature.items() if ty != "constexpr"}
    facts |= {f"{name}=": str(value) for name, value in spec.constexprs.items()}
    for name, attrs in spec.attrs.items():
        # one fact per attribute, so only the attributes that differ are named: ['tt.divisibility',
        # 16] and ['tt.pointer_range', 32] as Triton's attrs list them (hip has both on a
        # pointer; one joined fact read "x_ptrpointer_range" against "x_ptr%16,pointer_range")
        for attr in attrs:
            if not (isinstance(attr, (list, tuple)) and attr):
                continue
            short = str(attr[0]).split(".")[-1]
            if short == "divisibility" and len(attr) == 2:
                facts[f"{name}@%"] = f"%{attr[1]}"
            else:
                facts[f"{name}@{short}"] = short if len(attr) < 2 else f"{short}={attr[1]}"
    return facts


def _word(key: str, value: str, others: set[str]) -> str:
    """One difference: 'x_ptr:fp16', 'BLOCK=256', 'x_ptr%16', or 'x_ptr not %16' where
    another record has the attribute and this one has none."""
    if "@" in key:  # an attribute of an argument: 'x_ptr@%' -> 'x_ptr%16' / 'x_ptr not %16'
        name = key.split("@", 1)[0]
        if value:
            return f"{name}{value}" if value.startswith("%") else f"{name} {value}"
        return f"{name} not {'/'.join(sorted(o for o in others if o))}"
    name, kind = key[:-1], key[-1]
    if kind == ":":
        return f"{name}:{value}"
    return f"{name}={value}"


def telling_apart(kernels: list[CompiledKernel] | tuple[CompiledKernel, ...]) -> dict[int, str]:
    """Index -> what differs, for records that share a short name with another."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, k in enumerate(kernels):
        groups[k.short_name].append(i)
    out: dict[int, str] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        facts = {i: _facts(kernels[i]) for i in members}
        keys = sorted({key for f in facts.values() for key in f})
        differing = [key for key in keys if len({facts[i].get(key, "") for i in members}) > 1]
        for i in members:
            out[i] = (
                ", ".join(
                    _word(key, facts[i].get(key, ""), {facts[j].get(key, "") for j in members})
                    for key in differing
                )
                or "same specialization"
            )
    return out

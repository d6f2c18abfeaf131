"""A rebuild of the same file, kernel by kernel against the build before it.

After an edit, each kernel/config of the new build is the same record's successor when
its display name (and specialization) is unchanged; an edited config's label changes with
it (`num_stages=2` -> `3` is `matmul_kernel[...,w4,s2]` -> `[...,w4,s3]`), so the records
left over on both sides are paired in order, kernel by kernel, and said to be relabelled.
The Diff pane's Ctrl+D and the selection kept across a rebuild both read these pairs:
matching by name alone, a changed config fell back to the first config, and Ctrl+D
compared two identical records."""

from __future__ import annotations

from dataclasses import dataclass

from kx_core.records.results import CompiledKernel


@dataclass(frozen=True)
class RebuildPair:
    """One record of the new build and its predecessor (indices into each build's
    kernels; None where one side has no counterpart)."""

    before: int | None
    after: int | None
    relabelled: bool = False  # paired by position: its display name changed with the edit
    changed: bool = False  # relabelled, or any stage's text differs


def pair_rebuild(
    before: tuple[CompiledKernel, ...] | list[CompiledKernel],
    after: tuple[CompiledKernel, ...] | list[CompiledKernel],
) -> tuple[RebuildPair, ...]:
    """Every record of `after` with its predecessor in `before`, in `after`'s order, then
    the records of `before` that have none."""
    found: dict[int, tuple[int, bool]] = {}  # after index -> (before index, relabelled)
    taken: set[int] = set()
    for key in (lambda k: (k.display_name, k.specialization), lambda k: k.display_name):
        for j, k in enumerate(after):
            if j in found:
                continue
            i = next((i for i, old in enumerate(before) if i not in taken and key(old) == key(k)), None)
            if i is not None:
                found[j] = (i, False)
                taken.add(i)
    # what is left: an edited config on each side, paired in order within its kernel
    for j, k in enumerate(after):
        if j in found:
            continue
        i = next((i for i, old in enumerate(before) if i not in taken and old.name == k.name), None)
        if i is not None:
            found[j] = (i, True)
            taken.add(i)
    out = []
    for j, k in enumerate(after):
        if j not in found:
            out.append(RebuildPair(None, j, changed=True))
            continue
        i, relabelled = found[j]
        # stages both records have: a derived stage (SASS) is made after the text stages,
        # so one side may not have it yet, which is no change
        old_stages, new_stages = before[i].stages, k.stages
        changed = any(old_stages[s] != new_stages[s] for s in old_stages.keys() & new_stages.keys())
        out.append(RebuildPair(i, j, relabelled, relabelled or changed))
    out += [RebuildPair(i, None, changed=True) for i in range(len(before)) if i not in taken]
    return tuple(out)


def edited_pair(pairs: tuple[RebuildPair, ...], selected: int) -> RebuildPair | None:
    """The pair "what the last edit changed" shows, for the record `selected` of the new
    build: that record's pair when the edit changed it; else the config the edit changed
    (a relabelled one first); else the selected record's pair, unchanged; None when no
    record has a predecessor."""
    both = [p for p in pairs if p.before is not None and p.after is not None]
    mine = next((p for p in both if p.after == selected), None)
    if mine is not None and mine.changed:
        return mine
    changed = sorted((p for p in both if p.changed), key=lambda p: not p.relabelled)
    if changed:
        return changed[0]
    return mine or (both[0] if both else None)

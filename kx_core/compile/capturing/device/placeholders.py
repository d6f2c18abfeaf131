"""Going on past data: placeholder values where a kernel file reads tensor data.

Capture runs kernels on no data, so `.item()`, `bool(t)`, `torch.allclose`,
`assert_close`, `.tolist()`, `.cpu().numpy()`, `do_bench` and event timings have no true
answer. Instead of stopping the file there (which loses every later launch), capture
answers with a placeholder and goes on; each use is recorded (file, line, what) and every
kernel captured after the first one says so, because shapes or grids that depend on data
may differ from a real run. `stop_at_data` (kx compile --stop-at-data) restores the old
behaviour: the first read of data stops the file with a `runtime` diagnostic.

The placeholders are chosen so that ordinary files keep running:
- comparisons meant to pass pass: `allclose`/`equal` are True, `assert_close` returns,
  `a - b` of floats is taken as all zeros (so `(a - b).abs().max() < tol` holds; of
  integers it is a length, `cu[1:] - cu[:-1]`, unknown as any count), `isnan`/`isinf`
  and `a != b` of two tensors as all False, `a == b`/`isclose`/`isfinite` as all True;
- a tensor compared with a number is a mask against a sentinel: `labels != ignore_index`
  all True and `labels == ignore_index` all False, so a count of valid elements is the
  tensor's size (as in real data), never 0;
- any other value read is True for bool, 3 for integers and 1.0 for floats: no division
  by zero, no empty `range()` of a count, and an integer that, like most real counts,
  is neither 1 nor divisible by 16 (Triton specializes both);
- times (do_bench, Event.elapsed_time) are 1.0 ms;
- a `while` loop that decides on guesses is left once one place of one call has decided
  `LOOP_DECISIONS` times (Ledger.truth): the answer there is flipped once, so a
  `while t < t1:` on data kx does not have ends as the real run's does, at some count.
A tensor's presumed value is kept as the attribute `_kx_fill` and follows a few
value-preserving ops (abs, max, sum, mean, view, to, any/all, ...; see `propagate`).
"""

from __future__ import annotations

import bisect
import dis
import functools
import sys
from collections.abc import Callable
from typing import Any

from kx_core.compile.artifacts.file_kinds import inside_libraries_file, is_engine_file
from kx_core.records.results import DataPlaceholder

TIME_PLACEHOLDER_MS = 1.0
FILL = "_kx_fill"
# Decisions on guesses at one instruction of one call before kx takes the loop they
# steer to be endless on its guesses (torchdiffeq's adaptive `while next_t > t1:`,
# answered True, never ended: the file ran into its timeout). A length counted up by the
# loop has met every specialization Triton makes of an integer (1, a multiple of 16) by
# then; each iteration costs the whole loop body's capture (torchdiffeq: the
# dopri5 steps took 182 s at 64, three solves of 7 intervals)
LOOP_DECISIONS = 32
# Calls whose decisions are counted at once: a loop's frame is the one deciding again and
# again; each entry holds its frame (an id alone is reused by the next call of a function)
_LOOP_FRAMES = 8


class NeedsRealData(RuntimeError):
    """Raised where the file needs real results (a benchmark, a data comparison)."""


class Ledger:
    """Every placeholder use of this capture; `first` marks the kernels after it."""

    def __init__(self) -> None:
        self.stop_at_data = False
        self.first: DataPlaceholder | None = None
        self.uses: list[DataPlaceholder] = []
        self.on_use: Callable[[DataPlaceholder], None] | None = None
        self._seen: set[tuple] = set()
        # id(frame) -> (frame, {instruction offset: decisions there}), least recent first
        self._decisions: dict[int, tuple[Any, dict[int, int]]] = {}

    def user_frame(self) -> tuple[str | None, int | None]:
        """The innermost frame outside torch, triton, kx and the standard library."""
        frame = self._user_frame_object()
        return (frame.f_code.co_filename, frame.f_lineno) if frame is not None else (None, None)

    def _user_frame_object(self) -> Any:
        frame = sys._getframe(1)
        while frame is not None:
            if not inside_libraries_file(frame.f_code.co_filename):
                return frame
            frame = frame.f_back
        return None

    def inside_libraries(self, frame: Any) -> bool:
        """Whether `frame` is torch's, triton's, kx's or the standard library's code."""
        return self.inside_libraries_file(frame.f_code.co_filename)

    def inside_libraries_file(self, name: str) -> bool:
        """Whether the file `name` is torch's, triton's, kx's or the standard library's."""
        return inside_libraries_file(name)

    def use(self, what: str, value: Any, steers: bool = True) -> Any:
        """Record a read of data answered with `value`, and return it (or stop the file).
        A placeholder that `steers` marks the kernels launched after it (issue 50, item 5:
        their launches may follow the guess). It does not where it cannot change what the
        file launches: a value only formatted for print, or a check that raises or not
        (assert_close: a correct kernel passes it, and a failing one stops the real run)."""
        if self.stop_at_data:
            raise NeedsRealData(f"{what} needs real data; capture runs kernels on no data")
        file, line = self.user_frame()
        use = DataPlaceholder(what, repr(value) if not isinstance(value, str) else value, file, line)
        if steers and not checked_by_assert(self._user_frame_object()):
            self.steered(use)
        key = (what, file, line)
        if key not in self._seen:
            self._seen.add(key)
            self.uses.append(use)
            if self.on_use is not None:
                self.on_use(use)
        return value

    def steered(self, use: DataPlaceholder) -> None:
        """The file decided on a placeholder: launches from here on may follow the guess."""
        if self.first is None:
            self.first = use

    def decided(self, use: DataPlaceholder) -> None:
        """The file decides on a placeholder now (a GuessedFloat compared): it steers
        unless the decision is an `assert`'s."""
        if not checked_by_assert(self._user_frame_object()):
            self.steered(use)

    def truth(self, what: str, use: DataPlaceholder | None, computed: bool) -> bool:
        """A truth value the file computes from a placeholder (`err < tol` of a guessed
        error, `bool(t)` of a tensor a kernel wrote). Where it goes straight from the
        file's own line to an `assert`, the value that passes the assert: a correct kernel
        passes its check, a failing real run stops there, and a check failed on a guess
        would stop the capture where the real run goes on (`torch.testing.assert_close`
        is taken as passed for the same reason); said where it differs from `computed`.
        Anywhere else `computed`, and the file decided on the guess (`use`, where the
        guess was recorded already)."""
        frame = self._direct_user_frame()
        passing = assert_passes_with(frame) if frame is not None else None
        if passing is None:
            if use is not None:
                self.decided(use)
            return self._leaving_endless_loop(what, computed)
        if passing != computed:
            self.use(f"a check (an assert, or an `if` that raises) of {what}", "passed", steers=False)
        return passing

    def _leaving_endless_loop(self, what: str, computed: bool) -> bool:
        """`computed`, except at the `LOOP_DECISIONS`th decision on a guess at one
        instruction of one call of the file's code, inside a `while` loop: there the loop
        has asked again and again (only a jump back reaches an instruction of a live call
        twice) and goes on for as long as the guess holds, so the answer is flipped, once
        per place and call, and said. A `while t < t1:` or `if err < tol: break` whose real
        count kx cannot know then ends; an `if` that does not steer the loop takes its other
        branch once. A `for` loop ends with its iterable: a decode loop over
        `range(max_new_tokens)` with a guessed `break` on EOS runs its whole range, as a real
        run that draws no EOS does, and compiles what longer sequences compile."""
        frame = self._user_frame_object()
        if frame is None:
            return computed
        entry = self._decisions.pop(id(frame), None)
        if entry is None or entry[0] is not frame:
            entry = (frame, {})
            if len(self._decisions) >= _LOOP_FRAMES:
                del self._decisions[next(iter(self._decisions))]
        self._decisions[id(frame)] = entry  # (most recent last)
        counts = entry[1]
        counts[frame.f_lasti] = n = counts.get(frame.f_lasti, 0) + 1
        if n != LOOP_DECISIONS or not _in_a_while_loop(frame.f_code.co_filename, frame.f_lineno):
            return computed
        self.use(
            f"{what}, decided on {n} times at this place of one call (a loop going on for as long"
            f" as kx answers {computed}; a real run's count of iterations is unknown),",
            f"{not computed} once, to leave it,",
        )
        return not computed

    def _direct_user_frame(self) -> Any:
        """The file's frame where only kx's own frames stand between it and the ledger
        (the file's line computes the value itself), else None: a check inside torch or
        the standard library, called from a line that asserts on something else."""
        frame = sys._getframe(1)
        while frame is not None and is_engine_file(frame.f_code.co_filename):
            frame = frame.f_back
        if frame is None or inside_libraries_file(frame.f_code.co_filename):
            return None
        return frame

    def timing(self, what: str) -> float:
        """A time a capture cannot take: a GuessedFloat, which marks kernels only once the
        file decides on it (most files print their timings)."""
        return self.guessed_float(what, TIME_PLACEHOLDER_MS)

    def guessed_float(self, what: str, value: float) -> float:
        """A float read a capture cannot answer (a timing; `.item()` or `float()` of a
        floating tensor a kernel wrote, a loss): a GuessedFloat, which marks the kernels
        after it only once the file decides on it. A float passed on to a kernel
        changes nothing Triton compiles (it never specialises on a float), a printed one
        nothing at all."""
        if self.stop_at_data:
            self.use(what, value)  # raises NeedsRealData
        self.use(what, value, steers=False)
        file, line = self.user_frame()
        return GuessedFloat(value, DataPlaceholder(what, repr(value), file, line))


class GuessedFloat(float):
    """A float placeholder (a timing in milliseconds, a value read from a tensor a kernel
    wrote) that tells the ledger when the file decides on it: a comparison (`min` of
    timings, `if loss < best`), a truth test or a conversion to an integer may pick what
    the file launches next; printing it and arithmetic on it (the result is a
    GuessedFloat too) do not. known_values never takes one for exact data."""

    _kx_guessed = True  # (known_values asks this rather than importing the class)

    def __new__(cls, value: float, use: DataPlaceholder) -> GuessedFloat:
        guessed = super().__new__(cls, value)
        guessed.use = use
        return guessed

    def _decided(self) -> None:
        LEDGER.decided(self.use)

    def __reduce__(self) -> tuple:  # pickled (a multiprocessing queue): a plain float
        return (float, (float(self),))

    def _same(self, value: Any) -> Any:
        return GuessedFloat(value, self.use) if isinstance(value, float) else value

    __hash__ = float.__hash__

    def __round__(self, ndigits: int | None = None) -> Any:
        if ndigits is None:
            self._decided()  # an integer, as int() gives
            return float.__round__(self)
        return self._same(float.__round__(self, ndigits))

    def __neg__(self) -> Any:
        return self._same(float.__neg__(self))

    def __abs__(self) -> Any:
        return self._same(float.__abs__(self))


def _deciding(name: str) -> Callable[..., Any]:
    """float's `name`, after telling the ledger the file decides on the guess."""
    base = getattr(float, name)

    def op(self: GuessedFloat, *args: Any) -> Any:
        self._decided()
        return base(self, *args)

    op.__name__ = name
    return op


def _testing(name: str) -> Callable[..., Any]:
    """float's comparison or truth test `name`: a decision on the guess, or an assert's
    check (Ledger.truth), which passes."""
    base = getattr(float, name)

    def op(self: GuessedFloat, *args: Any) -> Any:
        result = base(self, *args)
        if not isinstance(result, bool):  # NotImplemented: the other operand decides
            return result
        if args and isinstance(args[0], GuessedFloat) and _picking_among_guesses():
            return result  # max(errs): which guess comes back, still a guess, decides nothing
        return LEDGER.truth(self.use.what, self.use, result)

    op.__name__ = name
    return op


# comparisons, a truth test, conversions to an integer: decisions on the value
for _name in ("__lt__", "__le__", "__gt__", "__ge__", "__eq__", "__ne__", "__bool__"):
    setattr(GuessedFloat, _name, _testing(_name))
for _name in ("__int__", "__floor__", "__ceil__"):
    setattr(GuessedFloat, _name, _deciding(_name))


# Builtins whose comparisons only pick among their arguments: of guesses alone, the
# answer is one of the guesses, and what the file decides on it is read where it does
_PICKING_BUILTINS = frozenset({"max", "min", "sorted"})


def _picking_among_guesses() -> bool:
    """Whether a comparison of two guesses runs inside a call of max(), min() or sorted()
    on the file's line (a C builtin has no frame: the file's frame is at its CALL), with
    no key= (a key's answers are other values). Found by walking back from the CALL over
    its arguments' stack effects to the instruction that loaded the callable. Example
    3.11 `assert max(errs) < tol`: LOAD_GLOBAL (NULL + max); LOAD_FAST errs; PRECALL 1;
    CALL 1; LOAD_FAST tol; COMPARE_OP."""
    frame = LEDGER._direct_user_frame()
    read = _instructions(frame.f_code) if frame is not None else None
    if read is None:
        return False
    code, _, offsets = read
    i = bisect.bisect_right(offsets, frame.f_lasti) - 1
    if i < 0 or code[i].opname != "CALL" or not isinstance(code[i].arg, int):
        return False
    needed, pushed, j = code[i].arg + 1, 0, i - 1  # the arguments, then the callable
    while j >= 0:
        ins = code[j]
        if ins.opname in _PADDING or ins.opname == "PRECALL":
            j -= 1
            continue
        if ins.opname in ("KW_NAMES", "CALL_KW") or "JUMP" in ins.opname:
            return False  # keywords (key=) or a branch among the arguments: not read
        try:
            pushed += dis.stack_effect(ins.opcode, ins.arg, jump=False)
        except ValueError:
            return False
        if pushed < needed and ins.is_jump_target:
            return False  # an argument another path reaches (`max(a if c else b)`)
        if pushed >= needed:  # the callable (its line's first instruction may be a target)
            if ins.opname == "PUSH_NULL":  # 3.13 pushes the NULL after the callable
                j -= 1
                while j >= 0 and code[j].opname in _PADDING:
                    j -= 1
                ins = code[j] if j >= 0 else ins
            return ins.opname in ("LOAD_GLOBAL", "LOAD_NAME") and ins.argval in _PICKING_BUILTINS
        j -= 1
    return False


def _arithmetic(name: str) -> Callable[[GuessedFloat, Any], Any]:
    base = getattr(float, name)

    def op(self: GuessedFloat, other: Any) -> Any:
        return self._same(base(self, other))

    op.__name__ = name
    return op


for _name in (
    "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
    "__rtruediv__", "__floordiv__", "__rfloordiv__", "__mod__", "__rmod__", "__pow__", "__rpow__",
):  # fmt: skip
    setattr(GuessedFloat, _name, _arithmetic(_name))


# What may stand between the instruction that made a value and the jump that decides on
# it, in an `assert` (3.10-3.13): inline caches, `not`, 3.13's explicit truth test.
_PADDING = frozenset({"CACHE", "EXTENDED_ARG", "NOP"})
_PASS_THROUGH = _PADDING | {"PRECALL", "UNARY_NOT", "TO_BOOL"}


def checked_by_assert(frame: Any) -> bool:
    """Whether the value the instruction `frame` is at makes goes straight to an
    `assert`'s jump: `assert torch.allclose(out, ref)`, `assert ms > 0 and ...`. Such a
    placeholder steers nothing: a correct kernel passes the check, and a failing real run
    stops there. A value stored, returned or branched on with `if` is not one."""
    return assert_passes_with(frame) is not None


def assert_passes_with(frame: Any) -> bool | None:
    """The truth value with which the value the instruction `frame` is at passes the
    `assert` it goes straight to (`assert err < tol`: True; `assert not bad`: False), or
    None where no assert's jump takes it. Reads the bytecode: the current instruction, or
    the next one past inline caches and `not`, is a conditional jump one of whose ends is
    LOAD_ASSERTION_ERROR; the end that is not passes."""
    if frame is None:
        return None
    read = _instructions(frame.f_code)
    if read is None:
        return None
    code, at, offsets = read
    # f_lasti may point into the current instruction's inline caches (3.11+), which
    # get_instructions leaves out: the instruction is the last one at or before it
    i = bisect.bisect_right(offsets, frame.f_lasti) - 1
    if i < 0:
        return None
    if frame.f_code.co_name == "<genexpr>" and _next_opname(code, i + 1) == "YIELD_VALUE":
        # `assert all(e < tol for e in errs)`: each element goes to all() (or any()), whose
        # answer the calling line asserts on; every element answered as the assert needs
        # passes both (`assert not any(...)`: every element False)
        return assert_passes_with(frame.f_back)
    if _next_opname(code, i + 1) == "LIST_APPEND":
        # `assert all([e < tol for e in errs])`: each element goes to a list, the list to
        # all() (or any()), its answer to the assert, as a generator's elements do
        return _passes_after_list(frame, code, at, i + 1)
    original = _dynamo_original(frame.f_code, code[i])
    if original is not None:
        return _passes_at(*original)
    return _passes_at(code, at, i, frame.f_code)


def _dynamo_original(code_object: Any, instruction: Any) -> tuple | None:
    """Where `code_object` is bytecode dynamo wrote for a compiled frame, the original
    code's instructions, {offset: index}, the index of `instruction` there and the original
    code object (see _passes_at); else None. At a graph break on a condition dynamo's code
    calls the graph, then runs the original jump itself (the same opname and source
    positions), whose two ends call resume functions: the raise a check leads to is in the
    original code only. (VITS's spline: `if torch.min(x) < left or torch.max(x) > right:
    raise ValueError(...)`, compiled, raised on a placeholder.)"""
    dynamo_utils = sys.modules.get("torch._dynamo.utils")
    original = getattr(dynamo_utils, "orig_code_map", {}).get(code_object) if dynamo_utils else None
    if original is None:
        return None
    read = _instructions(original)
    if read is None:
        return None
    code, at, _ = read
    same = [
        j
        for j, ins in enumerate(code)
        if ins.opname == instruction.opname and ins.positions == instruction.positions
    ]
    return (code, at, same[0], original) if len(same) == 1 else None


def _passes_at(code: list, at: dict, i: int, code_object: Any = None) -> bool | None:
    """assert_passes_with for the value instruction `i` makes (`code_object`: its code,
    where a jump past the assert's raise may be read; see _short_circuits_assert)."""
    made_at = i
    negations = 0
    if not _truth_jump(code[i]):  # 3.11's jump tests truth itself: `assert t` is at it
        i += 1
        while i < len(code) and code[i].opname in _PASS_THROUGH:
            negations += code[i].opname == "UNARY_NOT"
            i += 1
        if i >= len(code) or not _truth_jump(code[i]):
            return None
    jump = code[i]
    # Example 3.11 `assert ok`: POP_JUMP_FORWARD_IF_TRUE 12 (to 34); LOAD_ASSERTION_ERROR
    falls_to_error = _leads_to_a_raise(code, at, i + 1)
    target = at.get(jump.argval) if isinstance(jump.argval, int) else None
    jumps_to_error = target is not None and _leads_to_a_raise(code, at, target)
    jumps_when = "IF_TRUE" in jump.opname  # else IF_FALSE
    if falls_to_error == jumps_to_error:
        if falls_to_error or code_object is None or target is None:
            return None
        if not _short_circuits_assert(code_object, code, made_at, i, target):
            return None
        return jumps_when != bool(negations % 2)
    passes = jumps_when if falls_to_error else not jumps_when
    return passes != bool(negations % 2)


def _instructions(code_object: Any) -> tuple[list, dict, list] | None:
    """A code object's instructions, {offset: index} and the offsets in order, read once
    (a decode loop asks at every step of the same line); None where the bytecode cannot be
    read. A code object hashes its constants, and on Python 3.11 a slice among them is
    unhashable (dynamo's resume function after a graph break at `w[mask, :]`, VITS's
    spline in corpus 18: "unhashable type: 'slice'" stopped the file): read each time."""
    try:
        return _instructions_once(code_object)
    except TypeError:
        return _read_instructions(code_object)


@functools.lru_cache(maxsize=256)
def _instructions_once(code_object: Any) -> tuple[list, dict, list] | None:
    return _read_instructions(code_object)


def _read_instructions(code_object: Any) -> tuple[list, dict, list] | None:
    try:
        code = list(dis.get_instructions(code_object))
    except Exception:  # noqa: BLE001 - bytecode kx cannot read: the conservative answer
        return None
    return code, {ins.offset: i for i, ins in enumerate(code)}, [ins.offset for ins in code]


# What ends an inlined comprehension's loop before the call its list goes to (3.12+:
# END_FOR; SWAP 2; STORE_FAST g, restoring the loop variable; 3.13: POP_ITER too)
_LOOP_CLEANUP = _PADDING | {"END_FOR", "POP_ITER", "SWAP", "STORE_FAST", "POP_TOP"}


def _passes_after_list(frame: Any, code: list, at: dict, i: int) -> bool | None:
    """Where a comprehension's list goes once its loop ends: to a call (all(), any())
    whose answer an assert takes. From the LIST_APPEND at or after `i`, the loop's jump
    back, its FOR_ITER's exit, then past the loop's cleanup a CALL; on 3.11, where the
    comprehension is a function of its own, its RETURN_VALUE, and in the calling frame
    the CALL after the one that made the list. Examples: 3.12 `COMPARE_OP; LIST_APPEND
    2; JUMP_BACKWARD (to 18); 36 END_FOR; SWAP 2; STORE_FAST g; CALL 1;
    POP_JUMP_IF_TRUE`; 3.11 `<listcomp>`: `COMPARE_OP; LIST_APPEND 2; JUMP_BACKWARD (to
    6); 34 RETURN_VALUE`, its caller `CALL 0; PRECALL 1; CALL 1; POP_JUMP_FORWARD_IF_TRUE`."""
    i = _skip(code, _skip(code, i) + 1)  # past the LIST_APPEND
    if i >= len(code) or not code[i].opname.startswith("JUMP_BACKWARD"):
        return None
    head = at.get(code[i].argval)
    if head is None or code[head].opname != "FOR_ITER":
        return None
    end = at.get(code[head].argval)
    end = _skip(code, end, _LOOP_CLEANUP) if end is not None else len(code)
    if end >= len(code):
        return None
    if code[end].opname == "CALL":
        return _passes_at(code, at, end)
    if code[end].opname != "RETURN_VALUE" or frame.f_code.co_name != "<listcomp>":
        return None
    caller = frame.f_back
    read = _instructions(caller.f_code) if caller is not None else None
    if read is None:
        return None
    code, at, offsets = read
    j = _skip(code, bisect.bisect_right(offsets, caller.f_lasti), _PADDING | {"PRECALL"})
    if j >= len(code) or code[j].opname != "CALL":
        return None
    return _passes_at(code, at, j)


# What an assert's condition may skip when one of its terms passes it alone: loads,
# subscripts, comparisons and the jumps between them, no call (a call skipped would be a
# launch, a read, a print that a real run makes where the term is false)
_SKIPPABLE = _PASS_THROUGH | {
    "LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_LOAD_FAST", "LOAD_CONST", "LOAD_GLOBAL",
    "LOAD_NAME", "LOAD_DEREF", "LOAD_ATTR", "BINARY_SUBSCR", "COMPARE_OP", "IS_OP",
    "CONTAINS_OP", "BINARY_OP", "COPY", "SWAP", "POP_TOP", "JUMP_FORWARD",
}  # fmt: skip


def _short_circuits_assert(code_object: Any, code: list, made_at: int, i: int, target: int) -> bool:
    """Whether the jump at `i` on the value instruction `made_at` makes goes past an
    assert's raise, passing it, from a term of that assert's own condition: `assert ok and
    (err < tol or mode == "x")` (corpus 17's dpmsolver). Example 3.11: 10 COMPARE_OP (<);
    16 POP_JUMP_FORWARD_IF_TRUE (to 62); ...; 42 LOAD_ASSERTION_ERROR; ...; 60
    RAISE_VARARGS 1; 62 LOAD_CONST. `if c: assert x` makes the same bytecode, so the
    value must lie inside the assert statement's test in the source (ast: the statement's
    own positions), and what the pass skips must hold no call."""
    error = _skip(code, i + 1, _SKIPPABLE | {"POP_JUMP_IF_TRUE", "POP_JUMP_IF_FALSE"} | _JUMPS_FORWARD)
    if error >= len(code) or code[error].opname != "LOAD_ASSERTION_ERROR":
        return False
    raise_at = next(
        (j for j in range(error, min(len(code), error + 64)) if code[j].opname == "RAISE_VARARGS"), None
    )
    if raise_at is None or not _same_continuation(code, _skip(code, raise_at + 1), target):
        return False
    positions = getattr(code[made_at], "positions", None)
    return positions is not None and _inside_assert_test(code_object.co_filename, positions)


# what ends a block: its last instruction goes nowhere next
_TERMINAL = frozenset({"RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE", "JUMP_BACKWARD", "JUMP"})


def _same_continuation(code: list, a: int, b: int) -> bool:
    """Whether instructions `a` and `b` start the same code: the same one, or copies of one
    block up to its end (3.12 copies a short exit block to each jump that reaches it: the
    jump past an assert's raise at a function's end lands on `42 RETURN_CONST None`, the
    raise falls to `40 RETURN_CONST None`)."""
    if a == b:
        return True
    for _ in range(16):
        if a >= len(code) or b >= len(code):
            return False
        x, y = code[a], code[b]
        if (x.opname, x.argval) != (y.opname, y.argval):
            return False
        if x.opname in _TERMINAL:
            return True
        a, b = _skip(code, a + 1), _skip(code, b + 1)
    return False


# the conditional jumps of 3.11 (3.12 has the forward ones only, without the word)
_JUMPS_FORWARD = frozenset(
    {"POP_JUMP_FORWARD_IF_TRUE", "POP_JUMP_FORWARD_IF_FALSE", "JUMP_IF_TRUE_OR_POP", "JUMP_IF_FALSE_OR_POP"}
)


def _inside_assert_test(filename: str, positions: Any) -> bool:
    """Whether source positions (an instruction's) lie inside the test of an `assert`
    statement of `filename`."""
    if positions.lineno is None or positions.col_offset is None:
        return False
    start = (positions.lineno, positions.col_offset)
    end = (positions.end_lineno or positions.lineno, positions.end_col_offset or positions.col_offset)
    return any(a <= start and end <= b for a, b in _assert_tests(filename))


def _assert_tests(filename: str) -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    """The source spans of every assert statement's test in `filename` as it runs."""
    return _assert_spans(_running_source(filename))


def _in_a_while_loop(filename: str, line: int | None) -> bool:
    """Whether the innermost loop around `line` of `filename` as it runs is a `while` loop;
    True where the source cannot be read (the loop's kind unknown, it is left as an endless
    one would be)."""
    loops = _loop_spans(_running_source(filename))
    if loops is None or line is None:
        return True
    around = [(start, end, is_while) for start, end, is_while in loops if start <= line <= end]
    return bool(around) and max(around)[2]


def _running_source(filename: str) -> str:
    """The text of `filename` that runs: linecache's (unsaved edits kx runs sit there; a file
    edited since it was read is read again)."""
    import linecache

    linecache.checkcache(filename)
    return "".join(linecache.getlines(filename))


@functools.lru_cache(maxsize=16)
def _parsed(text: str) -> Any:
    """The syntax tree of source `text` (None where it is empty or does not parse)."""
    import ast

    try:
        return ast.parse(text) if text else None
    except (SyntaxError, ValueError):
        return None


@functools.lru_cache(maxsize=16)
def _loop_spans(text: str) -> tuple[tuple[int, int, bool], ...] | None:
    """(first line, last line, is a `while`) of every loop statement in source `text` (None
    where there is no tree to read)."""
    import ast

    tree = _parsed(text)
    if tree is None:
        return None
    return tuple(
        (n.lineno, n.end_lineno or n.lineno, isinstance(n, ast.While))
        for n in ast.walk(tree)
        if isinstance(n, (ast.For, ast.AsyncFor, ast.While))
    )


@functools.lru_cache(maxsize=16)
def _assert_spans(text: str) -> tuple[tuple[tuple[int, int], tuple[int, int]], ...]:
    """The spans of the assert statements' tests in source `text` (none where it does not
    parse)."""
    import ast

    tree = _parsed(text)
    if tree is None:
        return ()
    return tuple(
        ((n.test.lineno, n.test.col_offset), (n.test.end_lineno, n.test.end_col_offset))
        for n in ast.walk(tree)
        if isinstance(n, ast.Assert) and n.test.end_lineno is not None
    )


def _leads_to_a_raise(code: list, at: dict, i: int) -> bool:
    """Whether execution from instruction `i` reaches an assert's LOAD_ASSERTION_ERROR, or
    an exception raised straight away (_raises_an_error), through nothing but the stack's
    cleanup and forward jumps: a chained check's first end (3.11 `assert a < tol < b`:
    POP_JUMP_FORWARD_IF_FALSE (to 30); ...; JUMP_FORWARD (to 32); 30 POP_TOP; 32
    LOAD_ASSERTION_ERROR)."""
    for _ in range(4):
        if i is None or i >= len(code):
            return False
        ins = code[i]
        if ins.opname == "LOAD_ASSERTION_ERROR" or _raises_an_error(code, i):
            return True
        if ins.opname == "POP_TOP" or ins.opname in _PADDING:
            i += 1
        elif (
            ins.opname in ("JUMP_FORWARD", "JUMP") and isinstance(ins.argval, int) and ins.argval > ins.offset
        ):
            i = at.get(ins.argval)
        else:
            return False
    return False


# What may build an exception between its class and its `raise` (a message, formatted)
_BUILDS_AN_ERROR = _PADDING | {
    "LOAD_CONST", "LOAD_SMALL_INT", "LOAD_FAST", "LOAD_FAST_BORROW", "LOAD_DEREF", "LOAD_GLOBAL",
    "LOAD_NAME", "LOAD_ATTR", "LOAD_METHOD", "PRECALL", "CALL", "KW_NAMES", "CALL_KW", "PUSH_NULL",
    "BUILD_STRING", "FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC", "CONVERT_VALUE", "BUILD_TUPLE",
}  # fmt: skip


def _raises_an_error(code: list, i: int) -> bool:
    """Whether instruction `i` loads an exception class (a name ending in Error or
    Exception) that is raised straight away, its message built in between: a check
    written `if cond: raise ValueError("...")` is read as an assert is (VITS's spline in
    corpus 18: `if torch.min(inputs) < left or torch.max(inputs) > right: raise
    ValueError('Input to a transform is not within its domain')` raised on a guess where a
    real run passes). Example 3.11: LOAD_GLOBAL (NULL + ValueError); LOAD_CONST '...';
    PRECALL 1; CALL 1; RAISE_VARARGS 1 (at module level: PUSH_NULL; LOAD_NAME ValueError)."""
    if code[i].opname == "PUSH_NULL" and i + 1 < len(code):
        i += 1
    ins = code[i]
    if ins.opname not in ("LOAD_GLOBAL", "LOAD_NAME") or not str(ins.argval).endswith(("Error", "Exception")):
        return False
    for j in range(i + 1, min(i + 48, len(code))):
        if code[j].opname == "RAISE_VARARGS":
            return True
        if code[j].opname not in _BUILDS_AN_ERROR:
            return False
    return False


def _next_opname(code: list, i: int) -> str:
    """The name of the first instruction at or after `i` that is not an inline cache or
    padding ("" past the code's end)."""
    i = _skip(code, i)
    return code[i].opname if i < len(code) else ""


def _skip(code: list, i: int, names: frozenset = _PADDING) -> int:
    """The index of the first instruction at or after `i` whose name is not in `names`
    (len(code) past the end)."""
    while i < len(code) and code[i].opname in names:
        i += 1
    return i


def _truth_jump(ins: Any) -> bool:
    """A jump on a value's truth (POP_JUMP_IF_TRUE, POP_JUMP_FORWARD_IF_FALSE,
    JUMP_IF_TRUE_OR_POP), not on None."""
    return "JUMP" in ins.opname and ("IF_TRUE" in ins.opname or "IF_FALSE" in ins.opname)


LEDGER = Ledger()


INT_PLACEHOLDER = 3  # not 1 and not a multiple of 16: no specialization a real count rarely has


def default_value(dtype: Any) -> Any:
    """The placeholder of one element of `dtype` when nothing better is known."""
    if dtype is not None and getattr(dtype, "is_floating_point", False):
        return 1.0
    if dtype is not None and getattr(dtype, "is_complex", False):
        return 1.0 + 0j
    if str(dtype) == "torch.bool":
        return True
    return INT_PLACEHOLDER


def element_value(t: Any) -> Any:
    """The presumed value of every element of meta tensor `t`, as the Python type its
    dtype reads back as."""
    fill = getattr(t, FILL, None)
    value = default_value(t.dtype) if fill is None else fill
    if str(t.dtype) == "torch.bool":
        return bool(value)
    if t.dtype.is_floating_point:
        return float(value)
    if t.dtype.is_complex:
        return complex(value)
    return int(value)


def _nested(shape: tuple[int, ...], value: Any) -> Any:
    if not shape:
        return value
    return [_nested(shape[1:], value) for _ in range(shape[0])]


def tolist(t: Any) -> Any:
    return LEDGER.use(".tolist()", _nested(tuple(t.shape), element_value(t)))


def cpu_copy(t: Any) -> Any:
    """A real CPU tensor standing for meta tensor `t`: its shape and dtype, every element
    the placeholder (materialised up to 16M elements, else a broadcast view)."""
    import torch

    value = element_value(t)
    LEDGER.use(".cpu()", value)
    # device="cpu": the capture's default device is meta (torch.set_default_device)
    if t.numel() <= (1 << 24):
        return torch.full(tuple(t.shape), value, dtype=t.dtype, device="cpu")
    return torch.full((), value, dtype=t.dtype, device="cpu").expand(tuple(t.shape))


# ----------------------------------------------------------------- presumed values

# Results whose every element is known whatever the inputs hold (in a file's own checks).
_ALL_FALSE = {"isnan", "isinf", "isposinf", "isneginf"}
_ALL_TRUE = {"isclose", "isfinite"}
# Comparisons: of two tensors, a file's check (`(out != ref).any()` must be false); of a
# tensor and a number, a mask against a sentinel (`labels != ignore_index`), where most
# elements differ from the number, as in real data (a count of them is never 0).
_NOT_EQUAL = {"ne", "not_equal", "__ne__"}
_EQUAL = {"eq", "__eq__"}
_DIFFERENCE = {"sub", "__sub__", "subtract", "__rsub__"}
# Ops after which every element still holds the input's presumed value.
_KEEP = {
    "abs", "absolute", "__abs__", "neg", "negative", "__neg__", "max", "amax", "min", "amin",
    "mean", "norm", "vector_norm", "float", "double", "half", "bfloat16", "to", "type",
    "contiguous", "clone", "detach", "view", "reshape", "flatten", "squeeze", "unsqueeze",
    "__getitem__", "any", "all", "relu", "square", "sqrt", "expand", "broadcast_to",
    "permute", "transpose", "t", "T", "mT",
}  # fmt: skip
_COMPARE = {
    "lt": "<",
    "__lt__": "<",
    "le": "<=",
    "__le__": "<=",
    "gt": ">",
    "__gt__": ">",
    "ge": ">=",
    "__ge__": ">=",
}


def _floating(t: Any) -> bool:
    dtype = getattr(t, "dtype", None)
    return bool(getattr(dtype, "is_floating_point", False) or getattr(dtype, "is_complex", False))


def _fill_of(x: Any) -> Any:
    return getattr(x, FILL, None)


def _set(out: Any, fill: Any) -> Any:
    if fill is None:
        return out
    targets = [out]
    if isinstance(out, tuple) and out:  # max(dim=...) -> (values, indices)
        targets = [out[0]]
    for t in targets:
        if getattr(t, "is_meta", False):
            try:
                setattr(t, FILL, fill)
            except (AttributeError, TypeError):  # a tensor subclass that refuses attributes
                pass
    return out


def propagate(name: str, args: tuple, kwargs: dict, out: Any) -> Any:
    """Attach the presumed value of `out` (a meta tensor) after `name(*args)`."""
    if not getattr(out, "is_meta", False) and not isinstance(out, tuple):
        return out
    if name in _ALL_FALSE:
        return _set(out, False)
    if name in _ALL_TRUE:
        return _set(out, True)
    tensors = [a for a in args if hasattr(a, "is_meta")]
    if name in _NOT_EQUAL or name in _EQUAL:
        against_number = len(tensors) == 1 and len(args) > 1
        return _set(out, (name in _NOT_EQUAL) == against_number)
    if name in _DIFFERENCE and len(tensors) == 2 and _floating(out):
        # a file's check of a result against its reference; an integer difference is a
        # length or an offset (`cu_seqlens[1:] - cu_seqlens[:-1]`), as unknown as its terms
        return _set(out, 0)
    if not args:
        return out
    first = _fill_of(args[0])
    if first is None:
        return out
    if name in _KEEP:
        return _set(out, first)
    if name in ("sum", "count_nonzero") and isinstance(first, bool):
        n_in, n_out = args[0].numel(), max(getattr(out, "numel", lambda: 1)(), 1)
        return _set(out, (n_in // n_out) if first else 0)
    if name == "sum" and first == 0:
        return _set(out, 0)
    if name in ("logical_not", "__invert__", "bitwise_not") and isinstance(first, bool):
        return _set(out, not first)
    if name in ("mul", "__mul__", "__rmul__") and first == 0:
        return _set(out, 0)
    if name in _COMPARE and len(args) > 1 and isinstance(args[1], (int, float)):
        a, b = first, args[1]
        return _set(out, {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[_COMPARE[name]])
    return out


def data_shaped(
    name: str, args: tuple, kwargs: dict, mask_indices: Callable[[Any], Any] | None = None
) -> Any:
    """A capture tensor for an op whose output size depends on data kx does not have, or
    None where no size can be presumed. The size is a placeholder, said at the file's
    line: `torch.bincount(x, minlength=E)` of expert ids below E has E bins (what MoE
    routers count); `torch.nonzero(x)` presumes every element is nonzero."""
    import torch

    x = args[0] if args else None
    if name in FROM_DATA and isinstance(x, (list, tuple)):
        return _from_data_shaped(torch, x, kwargs)
    if not isinstance(x, torch.Tensor) or not x.is_meta:
        return None
    meta = torch.device("meta")
    if name == "bincount":
        minlength = kwargs.get("minlength", args[2] if len(args) > 2 else 0) or 0
        weights = kwargs.get("weights", args[1] if len(args) > 1 else None)
        if minlength <= 0:
            return None
        bins = LEDGER.use(
            "torch.bincount of data a capture does not have (bins = minlength; counts spread "
            "evenly, summing to the input's length)",
            int(minlength),
        )
        dtype = torch.int64 if weights is None else torch.promote_types(weights.dtype, torch.float64)
        return torch.empty((bins,), dtype=dtype, device=meta)
    if name in ("nonzero", "argwhere") and not kwargs.get("as_tuple", False):
        count = LEDGER.use(f"torch.{name} of data a capture does not have (every element)", x.numel())
        return torch.empty((count, x.dim()), dtype=torch.int64, device=meta)
    if (name == "nonzero" and kwargs.get("as_tuple", False)) or (
        name == "where" and len(args) == 1 and not kwargs
    ):
        # `torch.where(cond)` is `torch.nonzero(cond, as_tuple=True)` (PyTorch's docs):
        # one index tensor per dimension (DeepSeek-V3's MoE: `torch.where(indices == i)`)
        count = LEDGER.use(f"torch.{name} of data a capture does not have (every element)", x.numel())
        return tuple(torch.empty((count,), dtype=torch.int64, device=meta) for _ in range(max(x.dim(), 1)))
    if name == "masked_select" and len(args) > 1 and isinstance(args[1], torch.Tensor):
        # x.masked_select(mask) is x[mask] on their broadcast shape (PyTorch's docs): indexed
        # so, the result keeps x's autograd history, as the GPU's masked_select does (a fresh
        # tensor had none: the label-smoothed loss of attention-is-all-you-need, corpus 19,
        # `loss.masked_select(non_pad_mask).sum().backward()` raised "does not require grad")
        mask = args[1]
        shape = torch.broadcast_shapes(x.shape, mask.shape)
        what = "torch.masked_select of a mask a capture does not have (every element)"
        if len(shape) > 0:
            if tuple(mask.shape) != tuple(shape):
                mask = mask.expand(shape)  # (a broadcast mask's data is not kept: presumed)
            return _mask_indexed(torch, x.expand(shape), mask, mask_indices, what)
        return torch.empty((LEDGER.use(what, 1),), dtype=x.dtype, device=meta)
    if name in ("unique", "unique_consecutive"):
        return _unique_presumed(torch, name, x, args, kwargs)
    if name == "__getitem__" and len(args) > 1:
        return _mask_indexed(torch, x, args[1], mask_indices)
    return None


# Factories that read their data argument's values on the host (PyTorch's
# internal_new_from_data: each element of a sequence is read, a tensor element with item()
# or a copy): a capture tensor among the elements cannot answer in C++ ("Tensor.item()
# cannot be called on meta tensors")
FROM_DATA = frozenset({"tensor", "as_tensor", "asarray"})


def _from_data_shaped(torch: Any, data: Any, kwargs: dict) -> Any:
    """`torch.tensor([a, b, ...])` of capture tensors whose data kx cannot compute (unknown,
    or past known_values' work limit: the Decision Transformer's sampler, `torch.tensor(
    actions)` of every action sampled so far): the shape and dtype PyTorch gives the same
    nesting (its own inference run on zero stand-ins of each element's shape and dtype), the
    data unknown, so each later read of it is a placeholder, said."""

    def stand_in(a: Any, depth: int = 0) -> Any:
        if isinstance(a, torch.Tensor):
            # (only a one-element tensor is an element; any other raises as the real call
            # does, "only one element tensors can be converted", without allocating its size)
            return torch.zeros(tuple(a.shape) if a.numel() == 1 else (2,), dtype=a.dtype)
        if isinstance(a, (list, tuple)) and depth < 32:
            return [stand_in(b, depth + 1) for b in a]
        return a

    with torch._C.DisableTorchFunction():
        try:
            probe = torch.tensor(stand_in(data), dtype=kwargs.get("dtype"))
        except (TypeError, ValueError, RuntimeError):
            return None  # (PyTorch refuses the nesting itself: the op's own error stands)
        return torch.empty(tuple(probe.shape), dtype=probe.dtype, device="meta")


def presumed_counts(name: str, args: tuple, kwargs: dict, out: Any) -> Any:
    """The values presumed for `out`, data_shaped's placeholder of `torch.bincount(x,
    minlength=E)` without weights: counts that sum to x's length, as every such bincount's
    do (a MoE router then splits its tokens by them: `x.split(counts.tolist())` raised
    "split_with_sizes expects split_sizes to sum exactly to 8192" with a count of 3 a bin),
    spread evenly over the bins; None for another op or with weights. A CPU tensor, to keep
    as a guessed (not exact) value: its reads are said."""
    import torch

    weights = kwargs.get("weights", args[1] if len(args) > 1 else None)
    if name != "bincount" or weights is not None or not isinstance(out, torch.Tensor):
        return None
    bins, n = out.numel(), args[0].numel()
    if bins == 0:
        return None
    counts = torch.full((bins,), n // bins, dtype=out.dtype, device="cpu")  # (the default is meta)
    counts[: n % bins] += 1
    return counts


# ops whose indices output kx presumes where it does not have the data (presumed_indices),
# with the position of their `dim` argument
INDEX_OPS = {"topk": 2, "sort": 1, "argsort": 1}


def presumed_indices(torch: Any, name: str, args: tuple, kwargs: dict, out: Any) -> list[tuple[Any, Any]]:
    """(indices tensor, its presumed values) for `topk`, `sort` and `argsort` of data kx
    does not have: what every such result is by PyTorch's definition, distinct indices in
    range along the dimension (a permutation for sort and argsort), rather than one value
    for all. A placeholder's constant made InfLLM's block retrieval (`topk(...).indices
    .tolist()`) pick the same block for every slot and stop at its own `assert` that the
    blocks are distinct, where the GPU runs on. topk's are spread over the rows (row r
    takes r*k .. r*k+k-1, modulo the size), as a MoE router's experts spread over tokens;
    sort's and argsort's are the identity. CPU tensors, kept as guessed values: each read
    of them is said."""
    position = INDEX_OPS[name]
    dim = kwargs.get("dim", args[position] if len(args) > position else -1)
    indices = out if name == "argsort" else (out[1] if isinstance(out, tuple) and len(out) == 2 else None)
    x = args[0] if args else kwargs.get("input")
    if (
        not isinstance(indices, torch.Tensor)
        or not isinstance(x, torch.Tensor)
        or indices.dim() == 0
        or not isinstance(dim, int)
    ):
        return []
    dim %= indices.dim()
    n = x.shape[dim] if x.dim() else 1
    k = indices.shape[dim]
    if n == 0 or k == 0 or k > n:
        return []
    moved = list(indices.movedim(dim, -1).shape)
    rows = 1
    for size in moved[:-1]:
        rows *= size
    j = torch.arange(k, dtype=torch.int64, device="cpu")
    start = torch.arange(rows, dtype=torch.int64, device="cpu")[:, None] * (k if name == "topk" else 0)
    values = ((start + j) % n).reshape(moved).movedim(-1, dim).to(indices.dtype)
    return [(indices, values)]


def _unique_presumed(torch: Any, name: str, x: Any, args: tuple, kwargs: dict) -> Any:
    """`torch.unique(x)` of data kx does not have presumes every element (or every slice
    along `dim`) distinct, as nonzero() presumes every element nonzero: the values, and
    where asked the inverse indices (x's shape) and the counts, as PyTorch returns them
    (FlexPrefill's `torch.unique(torch.cat((block_idx, topk)))` of block indices)."""
    meta = torch.device("meta")
    # unique(input, sorted, return_inverse, return_counts, dim); unique_consecutive has no `sorted`
    names = ("sorted", "return_inverse", "return_counts", "dim")
    if name == "unique_consecutive":
        names = names[1:]
    given = dict(zip(names, args[1:], strict=False)) | kwargs
    dim = given.get("dim")
    count = x.numel() if dim is None else x.shape[dim]
    count = LEDGER.use(f"torch.{name} of data a capture does not have (every element distinct)", count)
    shape = (
        (count,) if dim is None else tuple(count if i == dim % x.dim() else n for i, n in enumerate(x.shape))
    )
    values = torch.empty(shape, dtype=x.dtype, device=meta)
    out = [values]
    if given.get("return_inverse"):
        out.append(
            torch.empty(tuple(x.shape) if dim is None else (x.shape[dim],), dtype=torch.int64, device=meta)
        )
    if given.get("return_counts"):
        out.append(torch.empty((count,), dtype=torch.int64, device=meta))
    return out[0] if len(out) == 1 else tuple(out)


def _mask_indexed(
    torch: Any,
    x: Any,
    index: Any,
    mask_indices: Callable[[Any], Any] | None,
    what: str = "a boolean-mask index of a mask a capture does not have (every element)",
) -> Any:
    """`x[mask, ...]` (airbench's `images[mask, :, r:r+c]`) where the data of what is indexed
    or of the boolean mask is unknown: PyTorch indexes with a mask as with its nonzero()
    index tensors, one per mask dimension. A mask whose data kx knows gives its own
    nonzero() indices (the size a real run has, whatever x holds: a jagged tensor's rows
    selected by lengths kx computed); one drawn by the GPU's generator is presumed every
    element selected (as nonzero above), said. The result is indexing with those, so it
    keeps x's autograd history. None where no mask is among the indices. `mask_indices`
    (known_values.mask_indices): a mask's nonzero() index tensors and whether they are
    exact, or None where its data is unknown."""

    parts = index if isinstance(index, tuple) else (index,)
    masks = [
        p
        for p in parts
        if isinstance(p, torch.Tensor) and p.dtype in (torch.bool, torch.uint8) and p.dim() > 0
    ]
    if not masks:
        return None
    meta = torch.device("meta")
    columns: dict[int, list[Any]] = {}
    presumed = 0
    for m in masks:
        known = mask_indices(m) if mask_indices is not None and m.is_meta else None
        if known is None:
            presumed += m.numel()
            continue
        cols, exact = known
        columns[id(m)] = cols
        if not exact:
            LEDGER.use("a boolean-mask index of kx's own sample of random data", int(cols[0].numel()))
    if presumed:
        LEDGER.use(what, presumed)
    expanded: list[Any] = []
    for p in parts:
        if any(p is m for m in masks):
            if id(p) in columns:
                expanded.extend(columns[id(p)])
            else:
                expanded.extend(
                    torch.empty((p.numel(),), dtype=torch.int64, device=meta) for _ in range(p.dim())
                )
        else:
            expanded.append(p)
    return x[tuple(expanded)]

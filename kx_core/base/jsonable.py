"""JSON round-trip for kx's frozen dataclasses.

Every result that crosses the worker boundary or reaches the GUI is a frozen dataclass.
`Jsonable.to_json()` turns one into plain JSON values; `Cls.from_json(d)` rebuilds it from
the field annotations, so nested dataclasses, tuples, optionals and dicts of dataclasses
come back as the types they were, not as dict soup.
"""

from __future__ import annotations

import dataclasses
import functools
import sys
import types
import typing
from typing import Any, TypeVar

T = TypeVar("T", bound="Jsonable")


def to_jsonable(value: Any) -> Any:
    """Plain JSON values (dict/list/str/int/float/bool/None) for a dataclass tree."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    module = sys.modules[cls.__module__]
    return typing.get_type_hints(cls, vars(module))


def _from(tp: Any, value: Any) -> Any:
    if value is None:
        return None
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        non_none = [a for a in args if a is not type(None)]
        # Optional[X] is the only union kx uses for structured values; anything else is
        # a union of scalars, which JSON already carries as-is.
        if len(non_none) == 1:
            return _from(non_none[0], value)
        return value
    if origin in (list, list):
        return [_from(args[0], v) for v in value] if args else list(value)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_from(args[0], v) for v in value)
        if args:
            return tuple(_from(a, v) for a, v in zip(args, value))
        return tuple(value)
    if origin is dict:
        kt, vt = (args[0], args[1]) if args else (Any, Any)
        # JSON keys are strings: a dict keyed by int (a line map) gets its ints back
        return {(int(k) if kt is int else k): _from(vt, v) for k, v in value.items()}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        return _build(tp, value)
    return value


def _build(cls: type, data: dict[str, Any]) -> Any:
    hints = _hints(cls)
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name in data:
            kwargs[f.name] = _from(hints[f.name], data[f.name])
    return cls(**kwargs)


class Jsonable:
    """Mixin for frozen dataclasses: `to_json()` and `from_json()`."""

    def to_json(self) -> dict[str, Any]:
        return to_jsonable(self)

    @classmethod
    def from_json(cls: type[T], data: dict[str, Any]) -> T:
        return _build(cls, data)


def check_json(tp: Any, value: Any, where: str = "") -> None:
    """Raise TypeError unless `value` (plain JSON) has the shape the annotation `tp`
    says: what a cache entry must pass before it is served (one that parses but holds a
    string where a count belongs is not a result)."""
    if tp is Any:
        return
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin in (typing.Union, types.UnionType):
        if value is None and type(None) in args:
            return
        for option in (a for a in args if a is not type(None)):
            try:
                check_json(option, value, where)
                return
            except TypeError:
                continue
        raise TypeError(f"{where or 'value'}: {type(value).__name__} fits none of {tp}")
    if origin in (list, tuple):
        if not isinstance(value, list):
            raise TypeError(f"{where}: expected a list, got {type(value).__name__}")
        if origin is tuple and args and not (len(args) == 2 and args[1] is Ellipsis):
            if len(args) != len(value):
                raise TypeError(f"{where}: expected {len(args)} items, got {len(value)}")
            for i, (a, v) in enumerate(zip(args, value)):
                check_json(a, v, f"{where}[{i}]")
            return
        for i, v in enumerate(value):
            check_json(args[0] if args else Any, v, f"{where}[{i}]")
        return
    if origin is dict:
        if not isinstance(value, dict):
            raise TypeError(f"{where}: expected an object, got {type(value).__name__}")
        for k, v in value.items():
            check_json(args[1] if args else Any, v, f"{where}.{k}")
        return
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(value, dict):
            raise TypeError(f"{where}: expected an object for {tp.__name__}, got {type(value).__name__}")
        hints = _hints(tp)
        names = {f.name for f in dataclasses.fields(tp)}
        required = {
            f.name
            for f in dataclasses.fields(tp)
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING
        }
        if unknown := set(value) - names:
            raise TypeError(f"{where}: unknown fields {sorted(unknown)} for {tp.__name__}")
        if missing := required - set(value):
            raise TypeError(f"{where}: missing fields {sorted(missing)} of {tp.__name__}")
        for name, v in value.items():
            check_json(hints[name], v, f"{where}.{name}")
        return
    scalar = {float: (int, float), int: (int,), str: (str,), bool: (bool,)}.get(tp)
    if scalar is None:
        return  # an annotation kx does not check further
    if not isinstance(value, scalar) or (tp is not bool and isinstance(value, bool)):
        raise TypeError(f"{where}: expected {tp.__name__}, got {type(value).__name__}")

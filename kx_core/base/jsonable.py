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
        vt = args[1] if args else Any
        return {k: _from(vt, v) for k, v in value.items()}
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

"""`--json` always answers in JSON (issue 53, item 4): every verb that takes --json, given
a binary file, a folder or a missing file, prints on stdout an object that validates
against kx_core/data/schemas/kx-error.schema.json, with the failure's exit status; it
printed one plain line on stderr and nothing on stdout before."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from kx_core.cli import main
from kx_core.cli.commands import build_parser

SCHEMA = json.loads(
    (
        Path(__file__).resolve().parents[2] / "kx_core" / "data" / "schemas" / "kx-error.schema.json"
    ).read_text()
)


# the positionals that name a file or folder the verb reads (egraph's is a term, layout's
# a layout, versions' an action)
FILE_ARGUMENTS = {"file", "files", "path"}


def _json_verbs() -> dict[str, list[str]]:
    """Verb -> its positional arguments, for every verb with a --json option that reads a
    file or folder."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {
        name: [a.dest for a in sp._actions if not a.option_strings and a.dest != "help"]
        for name, sp in sub.choices.items()
        if any("--json" in a.option_strings for a in sp._actions)
        and any(a.dest in FILE_ARGUMENTS for a in sp._actions if not a.option_strings)
    }


def _valid(value, schema: dict, where: str = "$") -> None:
    """The subset of JSON Schema the schema file uses (jsonschema is not a dependency):
    type, required, properties, additionalProperties false, items, minItems, minLength,
    minimum, anyOf and $ref into $defs."""
    if "$ref" in schema:
        _valid(value, SCHEMA["$defs"][schema["$ref"].rsplit("/", 1)[1]], where)
    if "anyOf" in schema:
        failures = []
        for option in schema["anyOf"]:
            try:
                _valid(value, option, where)
                break
            except AssertionError as e:
                failures.append(str(e))
        else:
            raise AssertionError(f"{where}: fits none of its schemas: {failures}")
    kind = schema.get("type")
    types = {"object": dict, "array": list, "string": str, "integer": int}
    if kind:
        assert isinstance(value, types[kind]) and not isinstance(value, bool), f"{where}: not {kind}"
    if isinstance(value, dict):
        assert set(schema.get("required", [])) <= set(value), f"{where}: missing {schema['required']}"
        props = schema.get("properties", {})
        if schema.get("additionalProperties") is False:
            assert set(value) <= set(props), f"{where}: unknown {set(value) - set(props)}"
        for k, v in value.items():
            if k in props:
                _valid(v, props[k], f"{where}.{k}")
    if kind == "array":
        assert len(value) >= schema.get("minItems", 0), f"{where}: too few items"
        for i, v in enumerate(value):
            _valid(v, schema.get("items", {}), f"{where}[{i}]")
    if kind == "string":
        assert len(value) >= schema.get("minLength", 0), f"{where}: too short"
    if kind == "integer":
        assert value >= schema.get("minimum", value), f"{where}: below its minimum"


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("json-answers")
    binary = root / "kernel.py"
    binary.write_bytes(b"import triton\x00\x01\x02" * 64)
    folder = root / "a_folder"
    folder.mkdir()
    return {"binary": binary, "folder": folder, "missing": root / "missing.py"}


def test_every_json_verb_answers_a_bad_input_in_json(bad_inputs, capsys):
    verbs = _json_verbs()
    assert {"compile", "kernels", "open", "sweep", "roofline"} <= set(verbs)
    for verb, positionals in verbs.items():
        for what, path in bad_inputs.items():
            status = main([verb, *[str(path)] * max(1, len(positionals)), "--json"])
            out = capsys.readouterr().out
            assert status != 0, (verb, what)
            try:
                answer = json.loads(out)
            except json.JSONDecodeError:
                raise AssertionError(f"kx {verb} <{what}> --json printed no JSON: {out[:200]!r}") from None
            _valid(answer, SCHEMA, f"kx {verb} <{what}>")
            if "kx_error" in answer:
                assert answer["kx_error"]["exit_status"] == status, (verb, what)


def test_a_verbs_own_json_is_left_alone(capsys):
    status = main(["gpu", "--json"])
    answer = json.loads(capsys.readouterr().out)
    assert status == 0 and "kx_error" not in answer

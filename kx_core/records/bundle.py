"""A bundle: one file that holds what a kx window shows for a file, so that another kx
opens it as it was (kx's answer to a share link): the source text, the target and
options it was compiled with, and the whole result (every kernel's stages, metadata,
diagnostics, the build). Nothing in it runs when it is opened.

    write_bundle(path, source, result)      # gzipped JSON, format BUNDLE_FORMAT
    bundle = read_bundle(path)              # BundleError with the reason when it is not one

A bundle is outside data (someone sent it): only a regular file is read, within
MAX_BYTES packed and unpacked (the gzip stream is read no further), its JSON within
outside_files.LIMITS.json_depth; a field kx only shows (`created`, `kx`) that holds
something else reads as unknown, never as a fault. Its digest covers every field
(kx-bundle/2; a kx-bundle/1 digest covered the source and result only, and is still
read). `file_name` must be a plain file name (no folder, no `..`): it is what the
document is called, never where a save goes (the app's Save asks where).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import math
import os
import time
from dataclasses import dataclass
from typing import Any

from kx_core.base.outside_files import RefusedFile, as_data, loads_json, open_regular
from kx_core.base.version import __version__
from kx_core.records.results import CompileResult

BUNDLE_FORMAT = "kx-bundle/2"  # its digest covers every field
OLD_FORMATS = ("kx-bundle/1",)  # read too: their digest covers the source and result only
SUFFIX = ".kxb"
MAX_BYTES = 512 << 20  # a bundle larger than this (unpacked) is refused, not read


class BundleError(ValueError):
    """Not a bundle kx can open (the message says why)."""


@dataclass(frozen=True)
class Bundle:
    source: str  # the file's text as compiled
    file_name: str  # the file's name where it was compiled (its folder is not kept)
    result: CompileResult
    kx_version: str
    created: float  # time.time() when written


def _digest(source: str, result_json: dict) -> str:
    """kx-bundle/1's digest: the source and the result."""
    body = json.dumps([source, result_json], sort_keys=True).encode()
    return hashlib.sha256(body).hexdigest()


def digest_of(doc: dict) -> str:
    """kx-bundle/2's digest: every field of the document but the digest itself."""
    body = json.dumps({k: v for k, v in doc.items() if k != "digest"}, sort_keys=True).encode()
    return hashlib.sha256(body).hexdigest()


def file_name_problem(name: object) -> str | None:
    """Why a bundle's `file_name` is not a plain file name (a path, `..`, a control
    character), or None. Example: '../proj/victim.py'. A record's bundle is named after
    the record ('cache', 'trace.ndjson'): any plain name is one."""
    if not isinstance(name, str) or not name:
        return f"its file_name {as_data(name, 80)} is not a name"
    shown = repr(name[:80])
    if "/" in name or "\\" in name or os.path.isabs(name) or name in (".", ".."):
        return f"its file_name {shown} is a path, not a file's name"
    if len(name) > 255 or not name.isprintable():
        return f"its file_name {shown} is not a plain file name"
    return None


def write_bundle(path: str, source: str, result: CompileResult) -> None:
    doc = {
        "format": BUNDLE_FORMAT,
        "kx": __version__,
        "created": time.time(),
        "file_name": os.path.basename(result.file),
        "source": source,
        "result": result.to_json(),
    }
    doc["digest"] = digest_of(doc)
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(doc, f)


def _created(value: Any) -> float:
    """When the bundle was written (time.time()), or 0.0 (unknown) for anything else: a
    field outside the digest that only says when is never a reason to refuse or to fail."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return 0.0
    return float(value) if math.isfinite(value) and 0 <= value < 1e11 else 0.0


def read_bundle(path: str) -> Bundle:
    """The bundle at `path`; BundleError says why it is not one kx opens (a message that
    names the file: not a regular file, past MAX_BYTES, nested too deep, edited)."""
    try:
        with open_regular(path) as raw:
            if os.fstat(raw.fileno()).st_size > MAX_BYTES:
                raise BundleError(f"{path}: larger than {MAX_BYTES >> 20} MiB: not opened")
            with gzip.GzipFile(fileobj=raw, mode="rb") as f:
                data = f.read(MAX_BYTES + 1)  # inflated no further than the cap
    except RefusedFile as e:
        raise BundleError(f"{path}: {e.why}") from e
    except (OSError, EOFError) as e:  # gzip.BadGzipFile is an OSError
        raise BundleError(f"{path}: not a kx bundle ({e})") from e
    if len(data) > MAX_BYTES:
        raise BundleError(f"{path}: larger than {MAX_BYTES >> 20} MiB unpacked: not opened")
    try:
        doc = loads_json(data.decode("utf-8"), path)
    except RefusedFile as e:
        raise BundleError(f"{path}: {e.why}") from e
    except (UnicodeDecodeError, json.JSONDecodeError) as e:
        raise BundleError(f"{path}: not a kx bundle (its JSON: {e})") from e
    if not isinstance(doc, dict) or doc.get("format") not in (BUNDLE_FORMAT, *OLD_FORMATS):
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise BundleError(f"{path}: format {str(found)[:60]!r}, this kx reads {BUNDLE_FORMAT!r}")
    source, result_json = doc.get("source"), doc.get("result")
    if not isinstance(source, str) or not isinstance(result_json, dict):
        raise BundleError(f"{path}: a bundle without its source or result")
    digest = digest_of(doc) if doc["format"] == BUNDLE_FORMAT else _digest(source, result_json)
    if doc.get("digest") != digest:
        raise BundleError(f"{path}: its contents do not match their digest (edited or truncated)")
    # a kx-bundle/1 without a file_name was named kernel.py; any name given must be a name
    name = doc.get("file_name", "kernel.py") if doc["format"] in OLD_FORMATS else doc.get("file_name")
    if problem := file_name_problem(name):
        raise BundleError(f"{path}: {problem}: not opened")
    try:
        result = CompileResult.from_json(result_json)
    except Exception as e:  # noqa: BLE001 - any malformed field is the same answer
        raise BundleError(f"{path}: its result cannot be read ({type(e).__name__}: {e})") from e
    return Bundle(
        source,
        name,
        result,
        as_data(doc.get("kx", "?"), 40),
        _created(doc.get("created")),
    )

"""Triton versions managed by kx: one isolated environment per Triton version, each with
the torch that pins it, all sharing one download cache.

`kx versions add 3.6.0` makes `<versions dir>/triton-3.6.0` (a virtual environment) and
installs `triton==3.6.0` with `torch` left for the resolver to match: every torch wheel on
the package index pins the Triton it was built with, so the newest torch whose pin is
3.6.0 is the one chosen. uv does it when it is installed (`pip install 'kx[versions]'`:
its cache links files instead of copying them); else the environment's own pip, whose
cache (~/.cache/pip) all environments share. Nothing of kx is installed there: kx's
worker runs in that interpreter from kx's own source (as `--python PATH` does), so a
kernel compiled there is compiled by that Triton, as a plain `python` of it would.

Location: $KX_VERSIONS_DIR, else ~/.local/share/kx/triton.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from kx_core.base.jsonable import Jsonable

# Example: "3.6.0", "3.5.1", "3.7.0rc1"
_VERSION_RE = re.compile(r"^\d+\.\d+(?:\.\d+)?(?:(?:a|b|rc)\d+)?$")
RECORD = "kx-env.json"


class VersionError(ValueError):
    """A version kx cannot manage (malformed, not added, or the install failed)."""


@dataclass(frozen=True)
class TritonEnv(Jsonable):
    version: str  # as asked ("3.6.0")
    path: str  # the environment's folder
    python: str  # its interpreter
    triton: str = ""  # what was installed, read back from the environment
    torch: str = ""
    installer: str = ""  # "uv", "pip", or "linked" (over the packages of the interpreter it was made from)
    add_s: float = 0.0  # seconds `kx versions add` took
    # the Triton the environment's torch pins ("" : none, a CPU build of torch, which
    # any Triton serves; said, since such a torch is not the one a CUDA user pairs with it)
    torch_pins: str = ""

    @property
    def matched(self) -> bool:
        # '~=3.8.0' and '==3.8.0' both name the 3.8 series
        return bool(self.torch_pins) and self.torch_pins.split(".")[:2] == self.triton.split(".")[:2]

    def line(self) -> str:
        pin = (
            ""
            if self.matched
            else "  (this torch pins no Triton: a CPU build)"
            if not self.torch_pins
            else f"  (this torch pins triton {self.torch_pins}: not matched)"
        )
        return (
            f"triton {self.triton or self.version}  torch {self.torch or '?'}{pin}  {self.python}"
            f"  (added with {self.installer or '?'} in {self.add_s:.0f} s)"
        )


# A requirement for --with: a distribution name, its extras and version specifiers, no
# option and no URL. Example: "helion==1.4.0", "tilelang", "nvidia-cutlass-dsl[cu12]>=4.2"
_PACKAGE_RE = re.compile(
    r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9._,-]+\])?(\s*(==|>=|<=|~=|!=|<|>)\s*[A-Za-z0-9.*+!-]+\s*,?)*$"
)


def versions_dir() -> Path:
    if env := os.environ.get("KX_VERSIONS_DIR"):
        return Path(env)
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "kx" / "triton"


def is_release(version: object) -> bool:
    """Whether `version` is a Triton release spelling kx manages (3.6.0, 3.5.0rc1): the
    only text a `kx versions add` command kx suggests may be made of."""
    return isinstance(version, str) and bool(_VERSION_RE.match(version))


def _checked(version: str) -> str:
    if not _VERSION_RE.match(version or ""):
        raise VersionError(f"{version!r}: expected a Triton release such as 3.6.0")
    return version


def env_path(version: str) -> Path:
    return versions_dir() / f"triton-{_checked(version)}"


def _python_of(path: Path) -> Path:
    return path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


def installed() -> list[TritonEnv]:
    """Every managed version whose environment is complete (its record written last)."""
    out = []
    folder = versions_dir()
    for record in sorted(folder.glob(f"triton-*/{RECORD}")) if folder.is_dir() else []:
        try:
            out.append(TritonEnv(**json.loads(record.read_text())))
        except (OSError, ValueError, TypeError):
            continue
    return out


def find(version: str) -> TritonEnv:
    """The managed environment of `version`; VersionError names the command that adds it."""
    for env in installed():
        if env.version == _checked(version) or env.triton == version:
            return env
    raise VersionError(f"triton {version} is not managed by kx yet: run `kx versions add {version}`")


def python_for(version: str) -> str:
    return find(version).python


def _installer() -> str | None:
    """uv when it is on PATH or installed beside kx (the `versions` extra), else None."""
    found = shutil.which("uv")
    if found:
        return found
    try:
        import uv  # noqa: PLC0415 - only to find its binary

        return uv.find_uv_bin()
    except (ImportError, AttributeError, FileNotFoundError):
        return None


def _read_back(python: Path) -> tuple[str, str, str]:
    """(triton, torch, the triton torch's metadata pins) as the interpreter sees them."""
    # Example requirements: 'triton==3.6.0; platform_system == "Linux"', 'triton~=3.8.0; ...'
    code = (
        "import importlib.metadata as m, re\n"
        "print(m.version('triton')); print(m.version('torch'))\n"
        "pins = [re.match(r'triton[=~]=([^;\\s]+)', r) for r in (m.requires('torch') or [])]\n"
        "print(next((p.group(1) for p in pins if p), '-'))"
    )
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120)
    lines = out.stdout.split()
    if out.returncode or len(lines) != 3:
        return "", "", ""
    return lines[0], lines[1], "" if lines[2] == "-" else lines[2]


def _site_dirs(python: Path) -> list[str]:
    code = "import site, sys; print('\\n'.join(p for p in sys.path if p.endswith('-packages')))"
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, timeout=120)
    return out.stdout.split("\n") if out.returncode == 0 else []


def _link_packages(base: Path, python: Path) -> None:
    """The new environment sees `base`'s site-packages through a .pth file: a venv's
    --system-site-packages would give the packages of the interpreter under `base`
    (pyenv's), not those of `base` when `base` is a venv itself."""
    ours = _site_dirs(python)
    if not ours:
        raise VersionError(f"{python}: cannot find its site-packages")
    theirs = [d for d in _site_dirs(base) if d and d not in ours]
    Path(ours[0]).mkdir(parents=True, exist_ok=True)
    (Path(ours[0]) / "kx-linked.pth").write_text("".join(d + "\n" for d in theirs))


def _run_step(cmd: list[str], version: str, log, timeout_s: float) -> None:
    log("$ " + " ".join(cmd))
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as e:
        raise VersionError(f"{' '.join(cmd[:3])}… took over {timeout_s:.0f} s") from e
    if proc.returncode:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-6:]
        raise VersionError(
            f"adding triton {version} failed ({cmd[0]} exit {proc.returncode}):\n" + "\n".join(tail)
        )


def add(
    version: str, python: str | None = None, log=print, timeout_s: float = 3600.0, extra: tuple[str, ...] = ()
) -> TritonEnv:
    """Create (or complete) the environment of `version`. `python`: the interpreter the
    environment is made from (default: the one running kx). `extra`: more packages for it
    (a kernel language built on that Triton: `helion==1.4.0`), also into one that exists."""
    path = env_path(version)
    for package in extra:  # a package, never an option to the installer (--index-url=...)
        if not _PACKAGE_RE.match(package):
            raise VersionError(
                f"--with {package!r}: not a package requirement (a name with a version, "
                "helion==1.4.0); options to pip or uv are not passed"
            )
    if (path / RECORD).exists():
        if extra:
            env = find(version)
            if env.installer == "linked":
                raise VersionError(
                    f"triton {version} is kx's own (linked): install {' '.join(extra)} where kx is installed"
                )
            uv = _installer()
            py = _python_of(path)
            cmd = [uv, "pip", "install", "--python", str(py), *extra] if uv else [
                str(py), "-m", "pip", "install", "--disable-pip-version-check", *extra]  # fmt: skip
            _run_step(cmd, version, log, timeout_s)
        return find(version)
    started = time.perf_counter()
    base = python or sys.executable
    uv = _installer()
    py = _python_of(path)
    packages = [f"triton=={version}", "torch", "numpy", *extra]
    linked = _read_back(Path(base))[0] == version
    if linked and extra:
        raise VersionError(
            f"triton {version} is kx's own (linked): install {' '.join(extra)} where kx is installed"
        )
    if linked:
        # the version `base` already has: an environment over its packages (nothing to
        # download), so every version a build names goes through one path
        uv = None
        steps = [[base, "-m", "venv", "--without-pip", str(path)]]
    elif uv:
        steps = [
            [uv, "venv", "--python", base, str(path)],
            [uv, "pip", "install", "--python", str(py), *packages],
        ]
    else:
        steps = [
            [base, "-m", "venv", str(path)],
            [str(py), "-m", "pip", "install", "--disable-pip-version-check", *packages],
        ]
    try:
        for cmd in steps:
            _run_step(cmd, version, log, timeout_s)
        if linked:
            _link_packages(Path(base), py)
        triton, torch, pins = _read_back(py)
        if triton != version and not triton.startswith(version):
            raise VersionError(f"the environment at {path} has triton {triton or 'none'}, not {version}")
    except BaseException:
        # never complete (no record): nothing of a failed add stays (a venv is 26 MB)
        shutil.rmtree(path, ignore_errors=True)
        raise
    env = TritonEnv(
        version,
        str(path),
        str(py),
        triton,
        torch,
        "linked" if linked else "uv" if uv else "pip",
        round(time.perf_counter() - started, 1),
        pins,
    )
    (path / RECORD).write_text(json.dumps(env.to_json(), indent=1))  # last: the env is complete
    return env


def remove(version: str) -> bool:
    path = env_path(version)
    if not path.exists():
        return False
    shutil.rmtree(path)
    return True

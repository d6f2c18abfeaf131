"""`kx versions list | add VERSION | remove VERSION`: Triton versions managed by kx
(kx_core/base/triton_envs.py), and `--triton VERSION` on the compile verbs (a build made
by that version's own environment).

    $ kx versions add 3.6.0
    triton 3.6.0  torch 2.10.0  ~/.local/share/kx/triton/triton-3.6.0/bin/python  (added with pip in 212 s)
"""

from __future__ import annotations

import argparse
import json
import sys

from kx_core.base import triton_envs
from kx_core.cli import args as cli_args


def add_versions_verb(sub) -> None:
    p = sub.add_parser("versions", help="Triton versions kx manages: list, add, remove")
    p.add_argument("action", choices=("list", "add", "remove"))
    p.add_argument("version", nargs="?", help="a Triton release, e.g. 3.6.0 (add, remove)")
    p.add_argument("--python", metavar="PATH", help="add: make the environment from this interpreter")
    p.add_argument(
        "--with",
        dest="extra",
        action="append",
        default=[],
        metavar="PKG",
        help="add: another package for that version (a kernel language: helion==1.4.0), repeatable",
    )
    p.add_argument("--json", action="store_true")


def versions_command(args: argparse.Namespace) -> int:
    try:
        if args.action == "list":
            envs = triton_envs.installed()
            if args.json:
                json.dump([e.to_json() for e in envs], sys.stdout, indent=1)
                sys.stdout.write("\n")
            elif not envs:
                print(f"no Triton version added yet ({triton_envs.versions_dir()}): kx versions add 3.6.0")
            for e in [] if args.json else envs:
                print(e.line())
            return cli_args.EXIT_OK
        if not args.version:
            print(f"kx versions {args.action}: name a version (e.g. 3.6.0)", file=sys.stderr)
            return cli_args.EXIT_USAGE
        if args.action == "add":
            env = triton_envs.add(
                args.version,
                args.python,
                log=lambda line: print(line, file=sys.stderr),
                extra=tuple(args.extra),
            )
            print(json.dumps(env.to_json(), indent=1) if args.json else env.line())
            return cli_args.EXIT_OK
        if triton_envs.remove(args.version):
            print(f"removed triton {args.version}")
            return cli_args.EXIT_OK
        print(f"kx: triton {args.version} is not managed by kx", file=sys.stderr)
        return cli_args.EXIT_USAGE
    except triton_envs.VersionError as e:
        print(f"kx: {e}", file=sys.stderr)
        return cli_args.EXIT_USAGE


def resolve_triton_option(args: argparse.Namespace) -> None:
    """`--triton VERSION` names the interpreter of that managed version (--python's
    field); VersionError when it is not added, with the command that adds it."""
    version = getattr(args, "triton", None)
    if not version:
        return
    if getattr(args, "python", None):
        raise triton_envs.VersionError("--triton and --python both name an interpreter: give one")
    args.python = triton_envs.python_for(version)

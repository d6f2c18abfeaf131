"""A compile request from a verb's arguments, and its compile: shared by `kx compile`
and the verbs that compile sides of their own (`kx compare`), so neither imports the
other's module."""

from __future__ import annotations

import argparse

from kx_core.records.results import CompileRequest, CompileResult
from kx_core.records.target import TargetError


def request_from_args(args: argparse.Namespace) -> CompileRequest:
    return CompileRequest(
        file=args.file,
        target=args.target,
        kernel=args.kernel,
        signature=args.signature,
        constexprs=dict(args.constexpr),
        num_warps=args.num_warps,
        num_stages=args.num_stages,
        maxnreg=args.maxnreg,
        passes=args.passes,
        llvm_passes=getattr(args, "llvm_passes", True),
        timeout_s=args.timeout,
        jobs=args.jobs,
        gpu=args.gpu,
        stop_at_data=args.stop_at_data,
        python=args.python,
        args=dict(args.arg),
        grid=args.grid,
        memory_limit_mb=args.memory_limit,
    )


def compile_from_args(args: argparse.Namespace) -> CompileResult:
    """Compile what a compile verb's arguments ask for (a C++ file through g++; with
    --triton, in that managed version's environment)."""
    from kx_core.cli.versions import resolve_triton_option

    resolve_triton_option(args)
    from kx_core.cpu.targets import CPP_SOURCES

    if args.file.endswith(CPP_SOURCES):  # a C++ CPU kernel: GCC, not Triton (the runner routes it)
        from kx_core.cpu.targets import is_cpu_spec

        if not is_cpu_spec(args.target):
            if args.target not in (None, "default"):
                raise TargetError(
                    f"{args.file} is a C++ CPU kernel: use --target cpu:avx2, cpu:avx512 or cpu:native"
                )
            from kx_core.cpu.targets import tier_of_file

            args.target = f"cpu:{tier_of_file(args.file) or 'avx2'}"
    from kx_core.compile.jobs.runner import compile_file

    return compile_file(request_from_args(args), use_cache=not args.no_cache)

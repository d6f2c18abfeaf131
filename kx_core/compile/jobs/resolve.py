"""Resolving a compile request at the door: `resolve_request(request)` decides, once,
everything the compile derives from the raw request, into one `ResolvedRequest`
(model/resolved_request.py) that the runner, the worker, the cache key and the Build read.

    the options that go together        request.check()          (records.results)
    the target                          --gpu's own architecture, else the spelling
                                        (records.target: 'local' asks nvidia-smi)
    the backend's compiler takes it     target_support.check_supported (ptxas --help)
    the board and its report            model.boards.device_report (--gpu checked)
    the interpreter and its Triton      interpreter.probe (--python), else kx's own

A bad request raises here, before anything runs: RequestError, TargetError
(boards.DeviceError for a --gpu that does not fit). An interpreter that cannot run the
worker is not raised: it is `interpreter_problem`, which the compile reports as a
diagnostic.
"""

from __future__ import annotations

import os
from dataclasses import replace

from kx_core.compile.jobs.cache import triton_version
from kx_core.compile.jobs.interpreter import probe
from kx_core.compile.jobs.target_support import check_supported
from kx_core.model.boards import device_report, target_for_gpu
from kx_core.model.resolved_request import ResolvedRequest
from kx_core.records.results import CompileRequest, Target
from kx_core.records.target import parse_target


def resolve_request(request: CompileRequest) -> ResolvedRequest:
    """The request resolved; raises RequestError or TargetError for a bad one."""
    request.check()  # options that go together, or a RequestError before anything runs
    target = _target(request)
    device = device_report(target, request.gpu)  # checks --gpu against the target
    request = replace(request, file=os.path.abspath(request.file))
    if not request.python:
        return ResolvedRequest(request, target, device, triton_version())
    found = probe(request.python, request.timeout_s)
    if found.problem:  # the request keeps the interpreter as given: nothing will run it
        return ResolvedRequest(request, target, device, found.triton or triton_version(), found.problem)
    return ResolvedRequest(
        replace(request, python=found.path), target, device, found.triton or triton_version()
    )


def _target(request: CompileRequest) -> Target:
    """The request's target; with --gpu and the default target, that GPU's architecture
    (a table GPU's own arch: it fits the GPU, and is not asked of the compiler)."""
    if request.gpu and (request.target or "default") == "default":
        return target_for_gpu(request.gpu)
    target = parse_target(request.target)
    check_supported(target)  # a target the backend's compiler does not take: a bad request
    return target

"""Autotuned launches under capture: every config a real run would try is compiled (in
forked children, `jobs` at a time, after one warm-up compile so they inherit initialised
LLVM/MLIR), then the launch runs through Triton's own Autotuner.run with kx's choice, so
the autotuner's state is what a real run leaves (with that choice, which the records and
every later read of `best_config` say is a guess).

Only the worker imports this module.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from dataclasses import replace
from typing import Any

from kx_core.compile.artifacts.kernel_record import config_of, jit_name
from kx_core.compile.capturing import capture_state, early_stages
from kx_core.compile.capturing.capture_state import CompileFailure, uncompiled_record
from kx_core.compile.capturing.device.placeholders import LEDGER, NeedsRealData
from kx_core.compile.capturing.jit_objects import base_jit, compile_diagnostic, pass_dumps
from kx_core.compile.capturing.launch_hooks import TritonRuns
from kx_core.compile.capturing.launch_site import launch_site
from kx_core.compile.wire import protocol
from kx_core.compile.wire.protocol import ListWriter
from kx_core.records.results import AutotuneConfig, Diagnostic


def on_autotune_run(runs: TritonRuns, tuner: Any, *args, **kwargs) -> Any:
    """Autotuner.run under capture: compile the configs a real run would try (once per
    autotune key), then launch the first that compiled."""
    state = capture_state.STATE
    configs = list(tuner.configs)
    if state.config is not None or len(configs) <= 1:
        if state.config is None and len(configs) == 1:
            state.config = config_of(configs[0], 0)
            try:
                return runs.autotune(tuner, *args, **kwargs)
            finally:
                state.config = None
        return runs.autotune(tuner, *args, **kwargs)
    tune_key = _autotune_key(tuner, args, kwargs)
    first = tune_key not in state.autotune_seen
    if first:
        tried = _configs_a_real_run_tries(tuner, args, kwargs)
        state.autotune_seen[tune_key] = _compile_configs(tuner, runs.autotune, args, kwargs, tried)
    chosen = state.autotune_seen[tune_key]
    if chosen is None:
        raise CompileFailure(f"no config of {jit_name(base_jit(tuner))} compiled")
    # Later launches with the same autotune key run the chosen config, as Triton's
    # cache does, even where the specialization changed (a constexpr outside the key):
    # that compile is recorded like any other.
    index, key, cfg = chosen
    if first:
        state.writer.send(protocol.Chosen(key, AUTOTUNE_CHOICE))
    state.config, state.first_launch = config_of(cfg, index), first
    try:
        return _run_autotuner_choosing(runs, tuner, cfg, args, kwargs)
    finally:
        state.config, state.first_launch = None, False


# What the record of the config a capture launches says of it.
AUTOTUNE_CHOICE = (
    "kx launched this config: the first that compiled (a real run times every config and keeps "
    "the fastest, which a capture cannot time)"
)


def _run_autotuner_choosing(runs: TritonRuns, tuner: Any, chosen: Any, args: tuple, kwargs: dict) -> Any:
    """Triton's own Autotuner.run, with its benchmark answering that `chosen` is the
    fastest: the autotuner's cache, best_config and timings end as a real run leaves
    them (with kx's choice), and the launch goes through Triton's code."""

    def bench(*bench_args: Any, config: Any, **meta: Any) -> list[float]:
        return [1.0, 1.0, 1.0] if same_config(config, chosen) else [2.0, 2.0, 2.0]

    had_results = getattr(tuner, "cache_results", False)
    tuner._bench = bench  # the instance's own attribute hides the method for this call
    tuner.cache_results = False  # kx's timings never reach Triton's on-disk autotune cache
    tuner._kx_choice = chosen
    try:
        return runs.autotune(tuner, *args, **kwargs)
    finally:
        del tuner._bench
        tuner.cache_results = had_results


def watch_best_config() -> None:
    """`kernel.best_config` read by the file (or a library it calls) after an autotuned
    launch is kx's guess, not the fastest config a real run would have kept: the read is
    recorded like a data placeholder, so every kernel captured after it says so."""
    from triton.runtime.autotuner import Autotuner

    def get(tuner: Any) -> Any:
        value = tuner.__dict__.get("_kx_best_config")
        choice = tuner.__dict__.get("_kx_choice")
        if value is not None and same_config(value, choice) and not LEDGER.inside_libraries(sys._getframe(1)):
            index = next((i for i, c in enumerate(tuner.configs) if same_config(c, value)), 0)
            LEDGER.use(f"{jit_name(base_jit(tuner))}.best_config", config_of(value, index).label)
        return value

    def set_(tuner: Any, value: Any) -> None:
        tuner.__dict__["_kx_best_config"] = value

    Autotuner.best_config = property(get, set_)


def _autotune_key(tuner: Any, args: tuple, kwargs: dict) -> tuple:
    """What Triton's autotuner caches on: the `key` arguments and every tensor dtype."""
    names = list(getattr(tuner, "arg_names", []))
    all_args = dict(zip(names, args)) | kwargs
    key = [repr(all_args.get(k)) for k in getattr(tuner, "keys", [])]
    key += [str(v.dtype) for v in all_args.values() if hasattr(v, "dtype")]
    return (id(tuner), tuple(key))


def same_config(a: Any, b: Any) -> bool:
    """The same triton.Config: the object, or one with the same kwargs and options (an
    early_config_prune may build new Config objects on every call: gemlite's yields them)."""
    if a is b:
        return True
    try:
        return a.all_kwargs() == b.all_kwargs()
    except AttributeError:  # not a triton.Config
        return False


def _configs_a_real_run_tries(tuner: Any, args: tuple, kwargs: dict) -> list[tuple[int, Any]]:
    """The configs Triton's autotuner would benchmark for this launch, each with its
    index: Triton's own prune_configs (early_config_prune, perf_model top-k) as
    Autotuner.run calls it, whatever objects it returns (a config a pruner made that is
    none of the list's is numbered after them). The list's configs it leaves out are
    recorded as pruned, not compiled, as a real run skips them."""
    configs = list(tuner.configs)
    every = list(enumerate(configs))
    if not (getattr(tuner, "early_config_prune", None) or getattr(tuner, "perf_model", None)):
        return every
    tuner.nargs = dict(zip(tuner.arg_names, args))
    try:
        kept = list(tuner.prune_configs(kwargs))  # a pruner may return a generator
    except Exception:  # noqa: BLE001 - a pruning function that fails: try them all
        return every
    tried: list[tuple[int, Any]] = []
    for cfg in kept:
        index = next((i for i, c in enumerate(configs) if same_config(c, cfg)), None)
        if index is None:
            index = len(configs) + sum(i >= len(configs) for i, _ in tried)
        tried.append((index, cfg))
    fn = base_jit(tuner)
    kept_indices = {i for i, _ in tried}
    for i, cfg in every:
        if i not in kept_indices:
            config = config_of(cfg, i)
            record = uncompiled_record(
                fn,
                "pruned",
                "the kernel's prune_configs_by leaves it out for this launch: a real run does not compile it",
                config,
            )
            capture_state.STATE.send_kernel(f"skipped/{record.name}/{i}", record)
    return tried or every


def _compile_configs(
    tuner: Any, original_run: Any, args: tuple, kwargs: dict, tried: list[tuple[int, Any]]
) -> tuple[int, str, Any] | None:
    """Compile the configs `tried` (index, triton.Config) of an autotuned launch; returns
    (index, record key, config) of the first config that compiled, or None. Uses forked
    children where fork exists."""
    state = capture_state.STATE
    by_index = dict(tried)
    name = jit_name(base_jit(tuner))
    state.progress(f"autotune: compiling {len(tried)} configs of {name}, {state.jobs} at a time")
    started = time.perf_counter()
    sender = _InOrder(sorted(by_index), by_index)
    if hasattr(os, "fork") and state.jobs > 1:
        _warm_up_once()
        _fork_configs(tuner, original_run, args, kwargs, tried, sender)
    else:
        for i, cfg in tried:
            sender.done(i, _compile_one_config(tuner, original_run, args, kwargs, cfg, i))
    sender.send_rest()
    state.add_time("autotune_s", time.perf_counter() - started)
    return sender.chosen


class _InOrder:
    """Sends the configs' messages in the configs' order, each as soon as every config
    before it is done, so the first config's stages reach the window while the others
    still compile (issue 51). A config's compile error is a `config` diagnostic once some
    config compiled (a real autotuner skips it, the launch stands): a failed config waits
    until a config before or after it tells which."""

    def __init__(self, order: list[int], by_index: dict[int, Any]) -> None:
        self.order = order
        self.by_index = by_index
        self.outcomes: dict[int, list[protocol.Message]] = {}
        self.sent = 0  # configs of `order` sent
        self.chosen: tuple[int, str, Any] | None = None  # the first config that compiled

    def next_unsent(self) -> int | None:
        """The config whose messages go out next."""
        return self.order[self.sent] if self.sent < len(self.order) else None

    def done(self, index: int, messages: list[protocol.Message]) -> None:
        self.outcomes[index] = messages
        self._send(final=False)

    def send_rest(self) -> None:
        self._send(final=True)

    def _send(self, final: bool) -> None:
        state = capture_state.STATE
        # the configs done with every config before them done: the first that compiled
        # among them is the first of all (none before it can still come)
        ready = []
        for i in self.order[self.sent :]:
            if i not in self.outcomes:
                break
            ready.append(i)
        for i in ready:
            if self.chosen is None:
                for message in self.outcomes[i]:
                    ok = (
                        isinstance(message, protocol.KernelCaptured)
                        and message.kernel["status"] == "compiled"
                    ) or (isinstance(message, protocol.Relaunched) and message.key in state.compiled_keys)
                    if ok:
                        self.chosen = (i, message.key, self.by_index[i])
                        break
        for i in ready:
            failed = any(
                isinstance(m, protocol.DiagnosticReport) and m.diagnostic["kind"] == "compile"
                for m in self.outcomes[i]
            )
            if failed and self.chosen is None and not final:
                return  # whether it is the launch's error or a skipped config's is not known yet
            self._send_config(self.outcomes.pop(i))
            self.sent += 1

    def _send_config(self, messages: list[protocol.Message]) -> None:
        state = capture_state.STATE
        for message in messages:
            if isinstance(message, protocol.KernelCaptured):
                state.seen.add(message.key)
                state.launched.add(message.kernel["name"])
                if message.kernel["status"] == "compiled":
                    state.compiled_keys.add(message.key)
                meta = message.kernel.get("metadata") or {}
                if meta.get("hash"):
                    state.key_by_hash.setdefault(meta["hash"], message.key)
            elif isinstance(message, protocol.DiagnosticReport) and self.chosen is not None:
                d = message.diagnostic
                if d["kind"] == "compile":
                    message = protocol.DiagnosticReport({**d, "kind": "config"})
            state.writer.send(message)


def _warm_up_once() -> None:
    state = capture_state.STATE
    if state.warmed_up:
        return
    state.warmed_up = True
    from triton.backends.compiler import GPUTarget

    from kx_core.compile.capturing.warmup import warm_up

    t = state.target
    started = time.perf_counter()
    state.join_prefetch()
    try:
        with pass_dumps(state.passes, record=False):  # the warm-up's LLVM dump is not the user's
            compiled = warm_up(GPUTarget(t.backend, t.arch, t.warp_size))
    except Exception:  # noqa: BLE001 - a failed warm-up only costs the children time
        compiled = True
    if compiled:  # none where the warm server had warmed up for this target
        state.add_time("warmup_s", time.perf_counter() - started)


def _compile_one_config(tuner, original_run, args, kwargs, cfg, index) -> list[protocol.Message]:
    """Run the autotuned launch with only `cfg`, collecting the messages it produces."""
    state = capture_state.STATE
    writer, saved_writer = ListWriter(), state.writer
    saved_configs = tuner.configs
    state.writer, state.config = writer, config_of(cfg, index)
    tuner.configs = [cfg]
    try:
        original_run(tuner, *args, **kwargs)
    except CompileFailure as e:
        _config_diagnostic(e.__cause__ or e, tuner, state.config)
    except NeedsRealData:
        pass
    except Exception as e:  # noqa: BLE001 - any failure of one config is that config's result
        _config_diagnostic(e, tuner, state.config)
    finally:
        tuner.configs = saved_configs
        state.writer, state.config = saved_writer, None
    return writer.messages


def _config_diagnostic(exc: BaseException, tuner: Any, config: AutotuneConfig) -> None:
    """A config that did not compile, named with its reason and line. One the GPU has
    too little of something for is a `pruned` record already, without a diagnostic."""
    from triton.runtime.errors import OutOfResources

    if isinstance(exc, OutOfResources):
        return
    name = jit_name(base_jit(tuner))
    d = compile_diagnostic(exc, name, capture_state.STATE.user_file)
    capture_state.STATE.send_diagnostic(
        replace(d, message=f"config {config.label}: {d.message}", kernel=f"{name}[{config.label}]")
    )


def _fork_configs(tuner, original_run, args, kwargs, indexed, sender: _InOrder) -> None:
    """Compile each config in a forked child, `state.jobs` at a time; `sender.done(index,
    messages)` as each child ends. The child of the first config not sent yet, while
    nothing of the file has compiled, sends its first IR stage early (early_stages.py)
    on a pipe of its own, forwarded here as it comes."""
    state = capture_state.STATE
    by_index = dict(indexed)
    specialized = {i: _specialization(tuner, cfg, args, kwargs) for i, cfg in indexed}
    pending = []
    for index, cfg in indexed:
        relaunch = _known_compile(specialized[index], kwargs.get("grid"))
        if relaunch is None:
            pending.append((index, cfg))
        else:
            sender.done(index, [relaunch])
    running: dict[int, tuple[int, str]] = {}
    early: dict[int, tuple[int, list[bytes]]] = {}  # pipe (read end) -> (config index, chunks)
    sys.stdout.flush()
    sys.stderr.flush()
    while pending or running:
        while pending and len(running) < state.jobs:
            index, cfg = pending.pop(0)
            fd, path = tempfile.mkstemp(prefix="kx-config-", suffix=".jsonl")
            os.close(fd)
            wanted = not state.compiled_keys and index == sender.next_unsent()
            read_end, write_end = os.pipe() if wanted else (-1, -1)
            pid = os.fork()
            if pid == 0:  # child: compile this config, write its messages, leave at once
                code = 0
                try:
                    if "torch" in sys.modules:
                        # PyTorch's rule for a forked worker (DataLoader's _worker_loop): one
                        # intra-op thread. The parent's OpenMP pool does not survive fork, and
                        # a parallel CPU op in the child (a config's pre_hook zeroing a split-K
                        # output's known data, triton-lang/kernels' matmul) waited on it forever
                        sys.modules["torch"].set_num_threads(1)
                    for r in early:
                        os.close(r)
                    if wanted:
                        os.close(read_end)
                    early_stages.send_through(_SendOnce(write_end) if wanted else None)
                    messages = _compile_one_config(tuner, original_run, args, kwargs, cfg, index)
                    with open(path, "w", encoding="utf-8") as f:
                        for m in messages:
                            f.write(json.dumps(m.to_json(), default=str) + "\n")
                except BaseException:  # noqa: BLE001 - the parent reports a bad exit
                    code = 1
                finally:
                    sys.stdout.flush()
                    sys.stderr.flush()
                    os._exit(code)
            if wanted:
                os.close(write_end)
                early[read_end] = (index, [])
            running[pid] = (index, path)
        pid, status = _wait_forwarding(early, sender)
        if pid not in running:
            continue
        index, path = running.pop(pid)
        messages = _read_child(path, status, tuner, by_index[index], index)
        _learn(specialized[index], messages)
        sender.done(index, messages)
    for r in early:
        os.close(r)


# A config's compile is remembered by what Triton keys its kernel cache on (the
# JITFunction, the specialization and options its binder gives for the launch's
# arguments), with the record key a config child compiled it under in this capture
# (state.compiled_as). A later launch of the kernel with a new autotune key (another
# shape: a tutorial's benchmark sweep) and the same specialization hits Triton's cache
# for that config, so its child would only say "relaunched": no child is forked for it
# (the triton-lang matmul tutorial: 960 of 992 children, each a fork of the whole worker).


def _specialization(tuner: Any, cfg: Any, args: tuple, kwargs: dict) -> tuple[tuple, dict] | None:
    """(Triton's specialization of this config's launch, its bound arguments) by
    JITFunction.run's own first steps (the device's binder), or None where the launch
    does more than that before the kernel (a heuristics wrapper, a config pre_hook, a
    warm-up): those configs are compiled in a child as before."""
    from triton.runtime.jit import JITFunction

    fn = getattr(tuner, "fn", None)
    if not isinstance(fn, JITFunction) or getattr(cfg, "pre_hook", None) or kwargs.get("warmup"):
        return None
    try:
        from triton.runtime.driver import driver

        binder = fn.device_caches[driver.active.get_current_device()][-1]
        call = {k: v for k, v in kwargs.items() if k not in ("grid", "warmup")} | cfg.all_kwargs()
        bound, specialization, options = binder(*args, **call)
    except Exception:  # noqa: BLE001 - not known here: the child compiles it
        return None
    return (id(fn), fn.cache_key, str(specialization), str(options)), bound


def _learn(specialized: tuple[tuple, dict] | None, messages: list[protocol.Message]) -> None:
    """Remember a child's compile of a config (one compiled record or relaunch, nothing
    said beside it) under its specialization."""
    if specialized is None or any(isinstance(m, protocol.DiagnosticReport) for m in messages):
        return
    keys = [
        m.key for m in messages if isinstance(m, protocol.KernelCaptured) and m.kernel["status"] == "compiled"
    ]
    keys += [m.key for m in messages if isinstance(m, protocol.Relaunched)]
    if len(keys) == 1:
        capture_state.STATE.compiled_as[specialized[0]] = keys[0]


def _known_compile(specialized: tuple[tuple, dict] | None, grid: Any) -> protocol.Relaunched | None:
    """The message the config's child would send, where its compile is known: the
    record relaunched, at the launch's site and grid (Triton's grid rule: the callable
    given the bound arguments)."""
    state = capture_state.STATE
    if specialized is None:
        return None
    key = state.compiled_as.get(specialized[0])
    if key is None or key not in state.compiled_keys:
        return None
    try:
        grid = grid(specialized[1]) if callable(grid) else grid
        grid = tuple(int(g) for g in grid) + (1,) * (3 - len(grid))
    except Exception:  # noqa: BLE001 - the child evaluates it (and says what failed)
        return None
    if len(grid) != 3 or min(grid) <= 0:
        return None
    return protocol.Relaunched(key, state.first_launch, launch_site(grid).to_json())


class _SendOnce:
    """A config child's early-stage pipe: one message, then closed, so the parent goes
    back to waiting for its children without polling."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def send(self, message: protocol.Message) -> None:
        try:
            protocol.MessageWriter(self.fd).send(message)
        finally:
            os.close(self.fd)


def _wait_forwarding(early: dict[int, tuple[int, list[bytes]]], sender: _InOrder) -> tuple[int, int]:
    """os.wait(), forwarding the early stages the children send meanwhile: the first
    config's TTIR while it (and the others) still compile, unless a config has been sent
    since (its whole record is on its way)."""
    import select

    while early:
        pid, status = os.waitpid(-1, os.WNOHANG)
        if pid:
            return pid, status
        # the first config's pipe ends when it has sent its stage (or ended): the others'
        # ends are seen within 10 ms meanwhile
        ready, _, _ = select.select(list(early), [], [], 0.01)
        for r in ready:
            index, chunks = early[r]
            chunk = os.read(r, 1 << 20)
            if not chunk:  # the child ended
                del early[r]
                os.close(r)
                continue
            chunks.append(chunk)
            if b"\n" not in chunk:
                continue  # a TTIR is often longer than one read
            messages, rest = protocol.parse_lines(b"".join(chunks))
            chunks[:] = [rest] if rest else []
            if not capture_state.STATE.compiled_keys and index == sender.next_unsent():
                for m in messages:
                    capture_state.STATE.writer.send(m)
    return os.wait()


def _read_child(path: str, status: int, tuner, cfg, index) -> list[protocol.Message]:
    try:
        with open(path, encoding="utf-8") as f:
            messages = [m for line in f if line.strip() if (m := protocol.decode(json.loads(line)))]
    finally:
        os.unlink(path)
    if os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0:
        return messages
    how = (
        f"killed by signal {os.WTERMSIG(status)}"
        if os.WIFSIGNALED(status)
        else f"exit status {os.WEXITSTATUS(status)}"
    )
    config = config_of(cfg, index)
    record = uncompiled_record(
        base_jit(tuner), "failed", f"compiling config {config.label} crashed ({how})", config
    )
    file, line = record.source_file, record.source_line
    return messages + [
        protocol.KernelCaptured(f"failed/{record.name}/{index}", record.to_json()),
        protocol.DiagnosticReport(
            Diagnostic("crash", record.message, file, line, None, record.name).to_json()
        ),
    ]

"""The warm worker: a process that has imported torch, triton and kx's capture once, and
forks one child per compile. The child is what a cold worker would be (its own process
group, the job's environment, working folder, output file and memory limit, the user's
file run as __main__), so a crash or a timeout costs that child only; the parent pays
the imports (3 s of every cold compile on two cores) once.

    python kx_run.py kx_core.compile.jobs.warm serve --socket PATH [--detach]

One server per interpreter and kx engine, at socket_path(python). The app starts one
beside itself (it dies with the app); `kx daemon start` starts a detached one that
serves the command line until `kx daemon stop`. runner.py uses a server when one
answers, and starts a cold worker otherwise: results are the same either way.

Protocol (a Unix socket, one connection per job): the client sends a JSON header and,
as SCM_RIGHTS, the write end of its message pipe and its output file; the server answers
{"pid": N} once the child runs and {"exit": code} when it ends (negative: the signal).

Trust: the socket lives in a folder kx made for this user alone (private_dir: mode 0700,
owned by the user, not a symlink; checked on every use, else no server is used and the
compile runs cold, saying why), and each side checks the other's uid (SO_PEERCRED).
Every read the server makes has a deadline, a client that hangs up at any point costs it
nothing, and a client's hang-up ends its job's whole process group. A server that goes
away mid-job is told apart from the job's crash (WarmProcess.server_lost): the runner
compiles again cold.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import select
import signal
import socket
import struct
import sys
import time

from kx_core.base.paths import runtime_dir
from kx_core.base.private_dir import UnsafeFolder, check_private, private_dir

_HEADER_MAX = 1 << 20
# how long the server waits for a client's header (a client that connects and sends
# nothing is dropped after it; others are served meanwhile)
HEADER_DEADLINE_S = 5.0

# why the last attempt to use a server was refused ('' when it was not): the runner puts
# it on the result of the cold compile it ran instead
last_refusal = ""


def socket_dir() -> str:
    """This user's private folder for the servers' sockets (paths.runtime_dir, made and
    checked by private_dir). Raises UnsafeFolder."""
    return private_dir(runtime_dir())


def peer_uid(sock: socket.socket) -> int:
    """The uid of the process at the other end of a Unix socket (SO_PEERCRED)."""
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def socket_path(python: str | None = None) -> str:
    """The warm server's socket for an interpreter and this engine. Keyed by the
    interpreter's own path, not its real path: every virtual environment's bin/python
    links to the same base interpreter, and a server started from one environment (its
    packages, perhaps since deleted) must never serve another."""
    from kx_core.compile.jobs.cache import engine_digest

    key = f"{os.path.abspath(python or sys.executable)}|{engine_digest()}"
    name = f"warm-{hashlib.sha256(key.encode()).hexdigest()[:12]}.sock"
    try:
        return os.path.join(socket_dir(), name)
    except UnsafeFolder:
        return os.path.join(runtime_dir(), name)  # _connect refuses it (and says why)


# ----------------------------------------------------------------- client


class WarmProcess:
    """A child of the warm server, seen from the client like a subprocess.Popen: pid
    (its process group), poll(), wait(); killing is workers.stop's killpg."""

    def __init__(self, conn: socket.socket, pid: int) -> None:
        self.conn = conn
        self.pid = pid
        self.returncode: int | None = None
        self.server_lost = False  # the server went away before the child's exit came
        self._buffer = b""

    def _read(self, timeout: float) -> None:
        if self.returncode is not None:
            return
        ready, _, _ = select.select([self.conn], [], [], timeout)
        if not ready:
            return
        try:
            chunk = self.conn.recv(4096)
        except OSError:
            chunk = b""
        if not chunk:  # the server is gone: the child is in its own group, killed by stop()
            self.server_lost = True
            self.returncode = -signal.SIGKILL
            return
        self._buffer += chunk
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            message = json.loads(line)
            if "exit" in message:
                self.returncode = int(message["exit"])
                self.conn.close()

    def poll(self) -> int | None:
        self._read(0)
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        deadline = None if timeout is None else time.monotonic() + timeout
        while self.returncode is None:
            remaining = None if deadline is None else deadline - time.monotonic()
            if remaining is not None and remaining <= 0:
                import subprocess

                raise subprocess.TimeoutExpired("warm child", timeout)
            self._read(0.2 if remaining is None else min(0.2, remaining))
        return self.returncode


def _connect(path: str, timeout: float = 1.0) -> socket.socket | None:
    """A connection to the server at `path`, or None: no server, a folder that is not
    this user's alone, or a server run by someone else (last_refusal says which)."""
    global last_refusal
    last_refusal = ""
    try:
        check_private(os.path.dirname(path))
    except UnsafeFolder as e:
        last_refusal = f"the warm server was not used: {e}"
        return None
    if not os.path.exists(path):
        return None
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        s.connect(path)
        uid = peer_uid(s)
    except OSError:
        s.close()
        return None
    if uid != os.getuid():
        s.close()
        last_refusal = f"the warm server was not used: the process at {path} is another user's (uid {uid})"
        return None
    return s


def _ask(
    path: str, header: dict, fds: list[int] = (), timeout: float = 5.0
) -> tuple[socket.socket, dict] | None:
    s = _connect(path)
    if s is None:
        return None
    try:
        socket.send_fds(s, [json.dumps(header).encode() + b"\n"], list(fds))
        s.settimeout(timeout)
        line = b""
        while not line.endswith(b"\n"):
            chunk = s.recv(4096)
            if not chunk:
                raise OSError("the warm worker closed the connection")
            line += chunk
        s.settimeout(None)
        return s, json.loads(line)
    except (OSError, ValueError):
        s.close()
        return None


def _start_child(python: str | None, header: dict, fds: list[int]) -> WarmProcess | None:
    """Ask the server for a child running `header`'s job; None when none answers."""
    global last_refusal
    answer = _ask(socket_path(python), header, fds)
    if answer is None or "pid" not in answer[1]:
        if answer is not None:
            answer[0].close()
            if isinstance(refused := answer[1].get("refused"), str):
                last_refusal = f"the warm server was not used: {refused}"
        return None
    return WarmProcess(answer[0], int(answer[1]["pid"]))


def start_job(
    python: str | None,
    request_path: str,
    jobs: int,
    *,
    env: dict[str, str],
    cwd: str,
    output: str,
    message_fd: int,
    job_dir: str,
    memory_limit_mb: int | None,
) -> WarmProcess | None:
    """Run one capture in a warm server's child; None when no server answers (the
    caller starts a cold worker)."""
    out = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        header = {
            "op": "run",
            "request": request_path,
            "jobs": jobs,
            "env": env,
            "cwd": cwd,
            "job_dir": job_dir,
            "client_pid": os.getpid(),
            "memory_limit_mb": memory_limit_mb,
        }
        child = _start_child(python, header, [message_fd, out])
        if child is not None:
            child.kx_job_dir = job_dir  # workers.stop also ends what left its group
        return child
    finally:
        os.close(out)


def status(python: str | None = None) -> dict | None:
    """The server's answer to a ping (pid, interpreter, triton, jobs served), or None."""
    answer = _ask(socket_path(python), {"op": "ping"})
    if answer is None:
        return None
    answer[0].close()
    return answer[1]


def stop(python: str | None = None) -> bool:
    answer = _ask(socket_path(python), {"op": "stop"})
    if answer is None:
        return False
    answer[0].close()
    return True


def launch(python: str | None = None, detach: bool = False, wait_s: float = 60.0):
    """Start a server for `python` (kx's own by default) unless one answers; with
    `detach` it outlives this process (`kx daemon start`), else it dies with it.
    Returns the Popen (None when one was already running); waits up to `wait_s` for it
    to answer (0: do not wait)."""
    from kx_core.base import workers

    global last_refusal
    if status(python) is not None:
        return None
    try:
        folder = socket_dir()
    except UnsafeFolder as e:
        last_refusal = f"no warm server started: {e}"
        return None
    from kx_core.compile.capturing.device.dynamo_preimport import CAPTURE_INDUCTOR_ENV

    path = socket_path(python)
    # what a capture job's environment says of Inductor, read by the server's import of
    # it (dynamo_preimport): a job whose environment says otherwise runs in a fresh worker
    env = {**os.environ, **CAPTURE_INDUCTOR_ENV}
    if detach:
        env["KX_NO_LIFELINE"] = "1"
    log = os.path.join(folder, os.path.basename(path) + ".log")
    proc = workers.start(
        "kx_core.compile.jobs.warm",
        ["serve", "--socket", path],
        output=log,
        python=python,
        env=env,
        cwd=folder,
    )
    deadline = time.monotonic() + wait_s
    while wait_s and time.monotonic() < deadline and proc.poll() is None:
        if status(python) is not None:
            break
        time.sleep(0.1)
    return proc


# ----------------------------------------------------------------- server


def _become_worker(header: dict, out: int) -> None:
    """In a forked child: its own process group, output to the job's file, the job's
    environment, path and folder, and a lifeline to the client."""
    os.setsid()
    os.dup2(out, 1)
    os.dup2(out, 2)
    os.close(out)
    sys.stdout = os.fdopen(1, "w", buffering=1, closefd=False)
    sys.stderr = os.fdopen(2, "w", buffering=1, closefd=False)
    env = header["env"]
    for entry in reversed([p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]):
        if entry not in sys.path:
            sys.path.insert(1, entry)
    os.environ.clear()
    os.environ.update(env)
    os.environ["KX_JOB_DIR"] = header["job_dir"]
    os.chdir(header["cwd"])
    from kx_core.base import lifeline
    from kx_core.base.workers import job_name, name_this_process

    # what the file forks (without exec) keeps the server's environment block, where
    # KX_JOB_DIR is not: the process name marks those (workers.kill_job)
    name_this_process(job_name(header["job_dir"]))

    lifeline.watch(header["client_pid"])
    if header.get("memory_limit_mb"):
        os.environ["KX_MEMORY_LIMIT_MB"] = str(header["memory_limit_mb"])
        lifeline.set_memory_limit(int(header["memory_limit_mb"]))


def _child(header: dict, fds: list[int]) -> None:
    """In the forked child: become the job's worker (see the module docstring)."""
    message_fd, out = fds
    _become_worker(header, out)
    from kx_core.compile.jobs.worker import run_job
    from kx_core.model.resolved_request import ResolvedRequest

    with open(header["request"], encoding="utf-8") as f:
        resolved = ResolvedRequest.from_json(json.load(f))
    run_job(resolved, message_fd, int(header["jobs"]))


def _module_child(header: dict, fds: list[int]) -> None:
    """In the forked child: run an engine worker module's main(args), as
    `python -m module args` would (the profile and edited-stage workers)."""
    import importlib

    _become_worker(header, fds[0])
    module = importlib.import_module(header["module"])
    sys.argv = [header["module"], *header["args"]]
    os._exit(module.main(list(header["args"])) or 0)


def start_module(
    python: str | None,
    module: str,
    args: list[str],
    *,
    env: dict[str, str],
    cwd: str,
    output: str,
    job_dir: str,
) -> WarmProcess | None:
    """Run an engine worker module in a warm server's child (torch and triton already
    imported); None when no server answers (the caller starts a cold worker)."""
    out = os.open(output, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        header = {
            "op": "module",
            "module": module,
            "args": list(args),
            "env": env,
            "cwd": cwd,
            "job_dir": job_dir,
            "client_pid": os.getpid(),
        }
        child = _start_child(python, header, [out])
        if child is not None:
            child.kx_job_dir = job_dir
        return child
    finally:
        os.close(out)


def _prepare() -> str:
    """Import what every capture needs, pay Triton's one-time costs; returns its version."""
    import torch  # noqa: F401
    import triton
    from triton.runtime.cache import triton_key

    import kx_core.compile.artifacts.kernel_record  # noqa: F401
    import kx_core.compile.capturing.capture  # noqa: F401

    triton_key()  # memoised: every child inherits it
    try:
        # torch imports these lazily on a file's first torch.randn under the capture's
        # device mode (its refs check pin_memory through sympy): 0.36 s of every save.
        import torch._refs  # noqa: F401
        import torch.fx.experimental.symbolic_shapes  # noqa: F401
    except Exception:  # noqa: BLE001 - an older torch without them: children import on demand
        pass
    try:
        from triton.backends.compiler import GPUTarget

        from kx_core.compile.capturing.warmup import warm_up

        warm_up(GPUTarget("cuda", 90, 32))  # LLVM and MLIR initialised once
    except Exception:  # noqa: BLE001 - a failed warm-up only costs the children time
        pass
    from kx_core.compile.capturing.device import dynamo_preimport

    try:
        # torch.compile's dynamo and Inductor, once for every child (where the machine
        # has no GPU; each capture child rewrites what they bound: dynamo_preimport)
        dynamo_preimport.preimport()
    except Exception:  # noqa: BLE001 - a torch whose import fails here: children import it
        dynamo_preimport.STATE = None
    from kx_core.compile.capturing.capture import user_modules

    user_modules(__file__)  # fills real_path's memo for every module imported so far
    return triton.__version__


def serve(path: str) -> int:
    from kx_core.base.process_tree import become_subreaper

    # what a job child's processes orphan when the child dies (a crash, a kill) comes to
    # the server, which ends it (_end_orphans) instead of init keeping it
    become_subreaper()
    server = _Server(path, _prepare())
    try:
        return server.loop()
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass


class _Server:
    """The daemon's loop: answer `ping` and `stop`, fork a child per `run`, reap them."""

    def __init__(self, path: str, version: str):
        self.version, self.started, self.served = version, time.time(), 0
        private_dir(os.path.dirname(path))  # never serve from a folder others can reach
        tmp = f"{path}.{os.getpid()}"
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(tmp)
        os.replace(tmp, path)  # a client sees the socket only once it is ready
        self.listener.listen(16)
        self.wake_r, wake_w = os.pipe()
        os.set_blocking(wake_w, False)
        signal.set_wakeup_fd(wake_w)
        signal.signal(signal.SIGCHLD, lambda *_: None)
        self.children: dict[int, socket.socket] = {}
        # connections whose header has not come yet -> when they are dropped
        self.pending: dict[socket.socket, float] = {}

    def loop(self) -> int:
        while True:
            running = [c for c in self.children.values() if c is not None]
            watched = [self.listener, self.wake_r, *self.pending, *running]
            deadline = min(self.pending.values(), default=None)
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            try:
                ready, _, _ = select.select(watched, [], [], timeout)
            except InterruptedError:
                continue
            if self.wake_r in ready:
                os.read(self.wake_r, 4096)
                _reap(self.children)
                _end_orphans(self.children)
            if self.listener in ready:
                self._accept()
            self._end_abandoned([c for c in ready if c in running])
            for conn in [c for c in ready if c in self.pending]:
                del self.pending[conn]
                if self._answer(conn) == "stop":
                    return 0
            self._drop_late()

    def _accept(self) -> None:
        """A new connection: served once its header comes (by its deadline), if it is
        this user's."""
        try:
            conn, _addr = self.listener.accept()
        except OSError:
            return
        try:
            ok = peer_uid(conn) == os.getuid()
        except OSError:
            ok = False
        if not ok:
            conn.close()
            return
        self.pending[conn] = time.monotonic() + HEADER_DEADLINE_S

    def _drop_late(self) -> None:
        now = time.monotonic()
        for conn in [c for c, t in self.pending.items() if t <= now]:
            del self.pending[conn]
            conn.close()

    def _end_abandoned(self, readable: list[socket.socket]) -> None:
        """A client that hung up (or sent anything more) while its job runs: the job's
        whole process group ends with it."""
        for conn in readable:
            conn.settimeout(0)  # a peek that never waits (a timeout socket polls first)
            try:
                data = conn.recv(1, socket.MSG_PEEK)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            finally:
                conn.settimeout(HEADER_DEADLINE_S)
            if data:
                continue
            pid = next(p for p, c in self.children.items() if c is conn)
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            self.children[pid] = None  # reaped (and its exit not sent) when it ends
            conn.close()

    def _answer(self, conn: socket.socket) -> str | None:
        fds: list[int] = []
        try:
            conn.settimeout(HEADER_DEADLINE_S)  # the header is readable: it comes at once
            data, fds, _flags, _addr = socket.recv_fds(conn, _HEADER_MAX, 2)
            header = json.loads(data)
            if not isinstance(header, dict):
                raise ValueError("the header is not an object")
        except (OSError, ValueError):
            for fd in fds:
                os.close(fd)
            conn.close()
            return None
        if header.get("op") == "stop":
            try:
                conn.sendall(b'{"stopping": true}\n')
            except OSError:
                pass
            conn.close()
            return "stop"
        try:
            return self._serve(conn, header, fds)
        except OSError:  # the client hung up while being answered: nothing of ours lost
            conn.close()
            return None

    def _serve(self, conn: socket.socket, header: dict, fds: list[int]) -> str | None:
        op = header.get("op")
        if op == "run" and len(fds) == 2 and (refused := _limit_refusal(header.get("memory_limit_mb"))):
            for fd in fds:
                os.close(fd)
            conn.sendall(json.dumps({"refused": refused}).encode() + b"\n")
            conn.close()
            return op
        if op in ("run", "module") and (differs := _env_difference(header.get("env"))):
            # the pre-import read this variable; a fresh worker reads the job's value
            for fd in fds:
                os.close(fd)
            print(f"kx warm: a fresh worker for this job: {differs}", file=sys.stderr, flush=True)
            conn.sendall(json.dumps({"cold": differs}).encode() + b"\n")
            conn.close()
            return op
        if op == "run" and len(fds) == 2:
            self._fork_run(conn, header, fds, _child)
            return op
        if op == "module" and len(fds) == 1 and str(header.get("module", "")).startswith("kx_core."):
            self._fork_run(conn, header, fds, _module_child)
            return op
        for fd in fds:
            os.close(fd)
        if op == "ping":
            info = {
                "pid": os.getpid(),
                "python": sys.executable,
                "triton": self.version,
                "jobs": self.served,
                "uptime_s": round(time.time() - self.started, 1),
                "running": sum(c is not None for c in self.children.values()),
                "dynamo_preimported": _preimported(),
            }
            conn.sendall(json.dumps(info).encode() + b"\n")
        conn.close()
        return op

    def _fork_run(self, conn: socket.socket, header: dict, fds: list[int], child) -> None:
        pid = os.fork()
        if pid == 0:
            self.listener.close()
            for other in [conn, *self.pending, *self.children.values()]:
                if other is not None:  # the child holds no other client's connection
                    other.close()
            os.close(self.wake_r)
            signal.set_wakeup_fd(-1)
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            try:
                child(header, fds)
            finally:
                os._exit(1)
        for fd in fds:
            os.close(fd)
        self.served += 1
        self.children[pid] = conn
        try:
            conn.sendall(json.dumps({"pid": pid}).encode() + b"\n")
        except OSError:  # the client left before hearing of its child: the child goes too
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            self.children[pid] = None
            conn.close()


def _preimported() -> bool:
    from kx_core.compile.capturing.device import dynamo_preimport

    return dynamo_preimport.STATE is not None


def _env_difference(env) -> str:
    """Why a job with environment `env` runs in a fresh worker ('' when a child fits): a
    variable torch read while the server imported dynamo ahead has another value there."""
    from kx_core.compile.capturing.device import dynamo_preimport

    # the capture's Inductor settings, under which the server imported, decide how Inductor
    # compiles (in its own process, without its graph caches), not what: an engine module's
    # job (a check, an edited stage) without them compiles the same kernels
    name = dynamo_preimport.env_difference(
        env if isinstance(env, dict) else {}, frozenset(dynamo_preimport.CAPTURE_INDUCTOR_ENV)
    )
    return f"{name} differs from the warm server's, which torch read when it imported dynamo" if name else ""


# Room past the server's own size that a child needs for a compile, in MiB.
_ROOM_MIB = 512


def _limit_refusal(limit_mb) -> str:
    """Why a job under `limit_mb` is no job for a child of this server ('' when it is):
    the child starts with the server's whole address space (torch, Triton, LLVM warmed
    up), past what a fresh worker has when the file starts, and under a limit close to
    it died at its first allocation, silently (exit status 1, "the file's crash")."""
    if not isinstance(limit_mb, int) or limit_mb <= 0:
        return ""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            size = next(int(ln.split()[1]) >> 10 for ln in f if ln.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError, IndexError):
        return ""
    if limit_mb >= size + _ROOM_MIB:
        return ""
    return f"the memory limit of {limit_mb} MiB leaves a child of it (already {size} MiB) no room to compile"


def _reap(children: dict[int, socket.socket | None]) -> None:
    while True:
        try:
            pid, status_ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        conn = children.pop(pid, None)
        if conn is not None:
            try:
                conn.sendall(json.dumps({"exit": os.waitstatus_to_exitcode(status_)}).encode() + b"\n")
            except OSError:
                pass
            conn.close()


def _end_orphans(children: dict[int, socket.socket | None]) -> None:
    """End the processes re-parented to the server (a subreaper) from a job child that
    died: the server's children that are no job of its own and left its session (its
    own helpers, if it has any, stay in it)."""
    from kx_core.base.process_tree import children_of, end_tree

    own = os.getsid(0)
    for pid in children_of(os.getpid()) - set(children):
        try:
            if os.getsid(pid) == own:
                continue
        except OSError:
            continue
        end_tree(pid)
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    _reap(children)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="kx-warm-worker")
    sub = ap.add_subparsers(dest="op", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--socket", required=True)
    args = ap.parse_args(argv)
    return serve(args.socket)


if __name__ == "__main__":
    raise SystemExit(main())

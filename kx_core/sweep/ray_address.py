"""`kx sweep --ray ADDRESS` checked at the door (issue 52, row 10): an address Ray cannot
reach is kx's message, exit 2, in seconds. Given `127.0.0.1:1` or an unknown host, Ray's
own client retried for ever, ignored SIGTERM for 30 s and said nothing of kx's.

An address is `HOST:PORT` (a cluster's head, 6379 by default), `ray://HOST:PORT` (Ray's
client server, 10001), `auto` or `local` (Ray's own: the cluster this machine started),
or nothing (kx starts a local instance). A host and port are resolved and connected to
with a time limit before Ray is asked; `auto` and `local` are Ray's to find.
"""

from __future__ import annotations

import re
import socket
import threading
from dataclasses import dataclass

from kx_core.sweep.errors import DispatchError

# How long resolving the host and connecting to it may take, each, in seconds.
CONNECT_TIMEOUT_S = 5.0

# Example: "10.0.0.5:6379", "ray://head.cluster:10001", "[::1]:6379"
_ADDRESS_RE = re.compile(
    r"^(?:ray://)?(?:\[(?P<v6>[0-9A-Fa-f:.]+)\]|(?P<host>[A-Za-z0-9._-]+)):(?P<port>\d{1,5})$"
)


class RayAddressError(DispatchError):
    """The address is no address, or nothing answers there."""


@dataclass(frozen=True)
class RayAddress:
    host: str
    port: int


def parse(address: str) -> RayAddress | None:
    """The host and port of a `--ray` address; None for Ray's own names (`auto`,
    `local`) and for nothing. Raises RayAddressError for anything else."""
    if address in ("", "auto", "local"):
        return None
    m = _ADDRESS_RE.match(address)
    port = int(m["port"]) if m else 0
    if not m or not 0 < port < 65536:
        raise RayAddressError(
            f"--ray {address!r} is not an address: give HOST:PORT (a cluster's head), "
            "ray://HOST:PORT, auto, or nothing for a local instance"
        )
    return RayAddress(m["v6"] or m["host"], port)


def _bounded(call, timeout_s: float):
    """call() in a thread, waited for at most `timeout_s` (name resolution has no time
    limit of its own): its value, or raises what it raised, or TimeoutError."""
    box: dict = {}

    def run() -> None:
        try:
            box["value"] = call()
        except BaseException as e:  # noqa: BLE001 - handed to the caller
            box["error"] = e

    thread = threading.Thread(target=run, name="kx-ray-address", daemon=True)
    thread.start()
    thread.join(timeout_s)
    if thread.is_alive():
        raise TimeoutError
    if "error" in box:
        raise box["error"]
    return box["value"]


def check(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> None:
    """Raise RayAddressError unless `address` is Ray's own name, nothing, or a host and
    port that accept a connection within the time limit."""
    where = parse(address)
    if where is None:
        return
    try:
        infos = _bounded(
            lambda: socket.getaddrinfo(where.host, where.port, type=socket.SOCK_STREAM), timeout_s
        )
    except TimeoutError:
        raise RayAddressError(
            f"--ray {address}: the host {where.host!r} was not resolved within {timeout_s:g} s"
        ) from None
    except OSError:
        raise RayAddressError(f"--ray {address}: the host {where.host!r} is not known") from None
    why = "no address to connect to"
    for family, kind, proto, _name, sockaddr in infos:
        try:
            with socket.socket(family, kind, proto) as s:
                s.settimeout(timeout_s)
                s.connect(sockaddr)
            return
        except TimeoutError:
            why = f"no answer within {timeout_s:g} s"
        except OSError as e:
            why = e.strerror or str(e)
    raise RayAddressError(
        f"--ray {address}: nothing answers there ({why}); start the cluster's head (`ray start "
        "--head`) or give its address, or leave ADDRESS out for a local instance"
    )

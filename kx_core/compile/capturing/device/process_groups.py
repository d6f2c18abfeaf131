"""torch.distributed under capture: a file's process group (NCCL on a GPU machine, as
nano-vllm's model runner makes it even for one GPU) stands in as PyTorch's own fake
backend (`torch.testing._internal.distributed.fake_pg`: collectives return at once and
change nothing), since NCCL needs a GPU ("ProcessGroupNCCL is only supported with
GPUs") and gloo cannot run collectives on capture tensors. With one rank that is what a
real run's collectives compute (an all-reduce of one rank is the identity). With more,
kx runs the file as the rank it names, alone: the other ranks' data never arrives, which
is said as a placeholder at the file's line (launches after it are marked: exit 5).

Runs only inside the capture worker, when torch.distributed is imported.
"""

from __future__ import annotations

import os
from typing import Any

RANKS = "torch.distributed process group of {world} ranks (kx runs rank {rank} alone; the other ranks' data never arrives)"


def install(module: Any) -> None:
    """Patch `torch.distributed.init_process_group` (module: torch.distributed)."""
    real = getattr(module, "init_process_group", None)
    if real is None or getattr(real, "_kx_fake", False):
        return

    def init_process_group(
        backend: Any = None,
        init_method: Any = None,
        timeout: Any = None,
        world_size: int = -1,
        rank: int = -1,
        store: Any = None,
        *args: Any,
        **kwargs: Any,
    ) -> Any:
        import torch.testing._internal.distributed.fake_pg as fake_pg  # registers "fake"

        from kx_core.compile.capturing.device.placeholders import LEDGER

        # init_method "env://" (the default) names them in the environment, as torchrun does
        world = world_size if world_size != -1 else int(os.environ.get("WORLD_SIZE", "1"))
        me = rank if rank != -1 else int(os.environ.get("RANK", "0"))
        if world > 1:
            LEDGER.use(RANKS.format(world=world, rank=me), f"rank {me}")
        options = {"timeout": timeout} if timeout is not None else {}
        return real(backend="fake", store=fake_pg.FakeStore(), world_size=world, rank=me, **options)

    init_process_group._kx_fake = True
    module.init_process_group = init_process_group
    c10d = getattr(module, "distributed_c10d", None)
    if c10d is not None:
        c10d.init_process_group = init_process_group

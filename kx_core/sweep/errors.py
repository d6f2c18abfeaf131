"""The sweep's own failure, apart so its modules need not import each other for it."""


class DispatchError(RuntimeError):
    """No measuring worker could start (no GPU, a broken environment, a Ray cluster
    without the GPUs asked for)."""

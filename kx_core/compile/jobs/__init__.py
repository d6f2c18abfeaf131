"""The jobs around a capture, on the parent side: the runner that spawns the worker and reads its messages, the worker, the warm server, the protocol, the result cache."""

"""What runs inside the worker to capture a file: the stand-in device and torch, Triton's launch hooks, autotune and Inductor capture, placeholders, running the file as __main__."""

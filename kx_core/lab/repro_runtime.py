"""The part of every repro script that does the work (kx_core.lab.repro copies the text
below the marker into each script, after the script's CAPTURE and SOURCE): load the
kernel's embedded source, build its arguments, compile or launch it, compare Triton's hash.

It imports only the standard library, torch and triton, and only attributes Triton 3.6
and 3.8 both have: `JITFunction.params` (`.name`, `.num`), `kernel[grid](...)` and
`warmup(..., grid=)` returning the CompiledKernel, `CompiledKernel.hash` (and
`metadata.hash`), `triton.compile(ASTSource(fn, signature, constexprs, attrs), target=,
options=)`, `GPUTarget(backend, arch, warp_size)`, `driver.active.get_current_target()`.
kx never imports this module to run it; tests import it to check its helpers.
"""

# ---- repro runtime (copied into each script below this line) ----
import linecache
import re
import sys
import traceback
import types

SAME, DIFFERENT, COULD_NOT_RUN = 0, 1, 2
# the name the kernel's embedded source runs under (a module of its own, so the script's
# names never shadow the file's)
SOURCE_MODULE = "repro_kernel_source"
# A @jit function passed as a constexpr, as the capture wrote it. Example:
# "JITFunction(__main__:leaky_relu)"
JIT_VALUE_RE = re.compile(r"^JITFunction\((?P<module>[^:()]*):(?P<name>[\w.]+)\)$")


def say(text):
    print(text, flush=True)


def load_source(source, file):
    """Run the kernel's embedded source as a module under the original file's name, its
    lines registered with linecache: inspect (and so Triton) reads each function's lines
    and first line number as the capture's run did."""
    linecache.cache[file] = (len(source), None, source.splitlines(keepends=True), file)
    module = types.ModuleType(SOURCE_MODULE)
    module.__file__ = file
    sys.modules[SOURCE_MODULE] = module
    exec(compile(source, file, "exec"), module.__dict__)
    return module


def bare_jit(obj):
    """The JITFunction under any wrapper (an autotuner's or heuristics' `.fn` chain)."""
    while not hasattr(obj, "params") and hasattr(obj, "fn"):
        obj = obj.fn
    return obj


def constexpr_value(value, module):
    """A constexpr as the capture wrote it (JSON) back as Triton takes it: a dtype's name
    ('fp16') the tl dtype, a @jit function's repr the function, a list a tuple."""
    import triton.language as tl

    if isinstance(value, list):
        return tuple(constexpr_value(v, module) for v in value)
    if not isinstance(value, str):
        return value
    dtypes = {*tl.dtype.SINT_TYPES, *tl.dtype.UINT_TYPES, *tl.dtype.FP_TYPES, *tl.dtype.OTHER_TYPES}
    name = value[3:] if value.startswith("tl.") else value
    if name in dtypes:
        return tl.dtype(name)
    if isinstance(getattr(tl, name, None), tl.dtype):
        return getattr(tl, name)
    found = JIT_VALUE_RE.match(value)
    if found and hasattr(module, found.group("name")):
        return getattr(module, found.group("name"))
    layout = gluon_layout(value)
    return value if layout is None else layout


def gluon_layout(text):
    """A Gluon layout as the capture wrote it: its repr, which is its constructor call
    (a dataclass's), rebuilt from gluon.language's own class, each argument a literal or
    a layout; None where the text is not such a call. Example:
    "BlockedLayout(size_per_thread=[4], threads_per_warp=[32], warps_per_cta=[4], order=[0])"
    (passed as its text, the kernel got a string: "tensor layout must be a
    DistributedLayout")."""
    import ast

    try:
        node = ast.parse(text, mode="eval").body
    except SyntaxError:
        return None
    return _layout_of(node)


def _layout_of(node):
    import ast

    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)) or not node.func.id.endswith(
        "Layout"
    ):
        return None
    try:
        from triton.experimental.gluon import language as gl
    except ImportError:
        return None
    cls = getattr(gl, node.func.id, None)
    if not isinstance(cls, type):
        return None

    def argument(value):
        inner = _layout_of(value)
        return inner if inner is not None else ast.literal_eval(value)

    try:
        return cls(*[argument(a) for a in node.args], **{k.arg: argument(k.value) for k in node.keywords})
    except (ValueError, TypeError, SyntaxError):
        return None


def storage_extent(shape, strides):
    """Elements a strided view reaches from its first one (0 for an empty view)."""
    if any(n == 0 for n in shape):
        return 0
    return 1 + sum((n - 1) * abs(s) for n, s in zip(shape, strides))


def contiguous_strides(shape):
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= max(n, 1)
    return strides


def make_tensor(arg, torch):
    """A CUDA tensor of the argument's dtype, shape and strides, `offset` elements into
    its storage (an offset of 1 makes the pointer not 16-byte aligned, as the captured
    one was). Floats are random, integers and booleans zero (indices stay in bounds)."""
    dtype = getattr(torch, arg["dtype"])
    shape = list(arg["shape"])
    strides = list(arg["strides"]) if arg.get("strides") is not None else contiguous_strides(shape)
    offset = int(arg.get("offset", 0))
    count = offset + storage_extent(shape, strides)
    if dtype.is_floating_point or dtype.is_complex:
        wide = torch.complex64 if dtype.is_complex else torch.float32
        storage = torch.randn(count, device="cuda", dtype=wide).to(dtype)
    else:
        storage = torch.zeros(count, device="cuda", dtype=dtype)
    return torch.as_strided(storage, shape, strides, offset)


def scalar_value(arg):
    value = arg.get("value")
    if arg["kind"] == "float" and isinstance(value, str):
        return float(value)  # 'inf', '-inf', 'nan' as the script writes them
    return value


def compiled_hash(kernel):
    """Triton's hash of a compiled kernel (its cache key)."""
    found = getattr(kernel, "hash", None)
    if found is None:
        found = getattr(getattr(kernel, "metadata", None), "hash", None)
    return found


def current_target():
    """(backend, arch, warp size) of the GPU Triton launches on."""
    from triton.runtime import driver

    t = driver.active.get_current_target()
    return (t.backend, t.arch, t.warp_size)


def launch(capture, module, torch):
    """The bare JITFunction launched as the capture's launch was: Triton's binder makes
    the specialization (alignment, ==1, %16) from these values, as it did there."""
    fn = bare_jit(getattr(module, capture["function"]))
    values = {}
    for arg in capture["args"]:
        kind = arg["kind"]
        if kind == "tensor":
            values[arg["name"]] = make_tensor(arg, torch)
        elif kind == "constexpr":
            values[arg["name"]] = constexpr_value(arg.get("value"), module)
        else:
            values[arg["name"]] = scalar_value(arg)
    options = dict(capture["options"])
    if capture.get("warmup"):  # compiled by warmup() in the capture: compiled, not launched
        return fn.warmup(grid=tuple(capture["grid"]), **values, **options)
    return fn[tuple(capture["grid"])](**values, **options)


def compile_kernel(capture, module):
    """triton.compile(ASTSource(...)) with the captured signature, constexprs, attributes
    and options, for the captured target: Inductor's way (its kernels are compiled so)."""
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    fn = bare_jit(getattr(module, capture["function"]))
    index = {p.name: p.num for p in fn.params}

    def path(name):
        head, *rest = name.split(".")
        return (index[head], *(int(p) for p in rest))

    constexprs = {path(k): constexpr_value(v, module) for k, v in capture["constexprs"].items()}
    # lists of lists, as Triton and Inductor write them: the cache key holds their text
    attrs = {path(k): [list(a) for a in v] for k, v in capture["attrs"].items()}
    source = ASTSource(fn, dict(capture["signature"]), constexprs, attrs)
    target = GPUTarget(*capture["target"])
    return triton.compile(source, target=target, options=dict(capture["options"]))


def run(capture, source):
    """Compile (and, in launch mode, launch) the kernel; print expected and got hashes.
    Exit status: 0 the same hash, 1 another, 2 nothing compiled (no GPU, an error)."""
    say(f"kernel    {capture['kernel']}  ({capture['mode']} mode, target {capture['target_spec']})")
    try:
        module = load_source(source, capture["source_file"])
    except Exception:  # noqa: BLE001 - the embedded source's own failure, said in full
        traceback.print_exc()
        say("could not run the kernel's source (above): nothing compiled")
        return COULD_NOT_RUN
    launch_error = None
    try:
        if capture["mode"] == "compile":
            kernel = compile_kernel(capture, module)
        else:
            import torch

            if not torch.cuda.is_available():
                say(
                    "no CUDA GPU here: this repro launches the kernel as the capture did; "
                    "run it on a GPU machine with torch and triton"
                )
                return COULD_NOT_RUN
            here = current_target()
            wanted = tuple(capture["target"])
            if here != wanted:
                say(
                    f"note: this GPU is {here[0]}:{here[1]}, the capture compiled for {capture['target_spec']}"
                )
            kernel = launch(capture, module, torch)
            try:
                torch.cuda.synchronize()
            except Exception as e:  # noqa: BLE001 - the kernel ran on made-up data; its hash stands
                launch_error = f"{type(e).__name__}: {e}"
    except Exception:  # noqa: BLE001 - a compile or launch failure, said in full
        traceback.print_exc()
        say("the kernel did not compile (above)")
        return COULD_NOT_RUN
    got = compiled_hash(kernel)
    say(f"expected  {capture['expected_hash']}")
    say(f"got       {got}")
    if launch_error:
        say(f"the launch on made-up data failed after compiling ({launch_error})")
    elif capture["mode"] == "launch":
        say(f"launched  grid {'x'.join(map(str, capture['grid']))}")
    if got == capture["expected_hash"]:
        say("same hash: Triton compiled the captured kernel")
        return SAME
    say("DIFFERENT hash: this Triton, GPU or environment compiled another kernel than the capture")
    import triton

    if capture.get("triton") and triton.__version__ != capture["triton"]:
        say(
            f"(Triton {triton.__version__} here, {capture['triton']} in the capture: "
            "Triton's hash covers its own version, so a capture by another Triton never matches)"
        )
    return DIFFERENT

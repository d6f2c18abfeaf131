"""Import helpers and stand-ins for fresh corpus 6's drivers (kx's own code, no upstream code).

Self-contained (no other support module is imported). Every stand-in here is used whether or
not the real package is installed, so a driver runs the same on any machine: no download, no
hub, no installed-version drift. Upstream sources are found on sys.path (the manifest's
"pythonpath" puts the `.realfiles/...` folders there).

`small()` is true when KX_CORPUS_SMALL=1 is set: the drivers then shrink their shapes (a switch
for checking a driver on a CPU with Triton's interpreter); by default they run their real sizes.
"""

from __future__ import annotations

import contextlib
import importlib.machinery
import os
import re
import sys
import types


def small() -> bool:
    return os.environ.get("KX_CORPUS_SMALL", "0") == "1"


def pick(real, toy):
    """`real` by default, `toy` under KX_CORPUS_SMALL=1."""
    return toy if small() else real


def find_on_path(rel: str) -> str:
    """The first `<sys.path entry>/<rel>` folder that exists."""
    for entry in sys.path:
        cand = os.path.join(entry or os.getcwd(), rel)
        if os.path.isdir(cand):
            return os.path.abspath(cand)
    raise ImportError(f"{rel!r} is not under any sys.path entry; set PYTHONPATH as the manifest says")


def bare_package(name: str, path: str | None = None) -> types.ModuleType:
    """Register package `name` (folder `path`, found on sys.path by default) without running its
    __init__.py, so `import name.sub.module` loads only that module and what it imports."""
    if name in sys.modules:
        return sys.modules[name]
    if path is None:
        path = find_on_path(name.replace(".", os.sep))
    mod = types.ModuleType(name)
    mod.__path__ = [path]
    mod.__file__ = os.path.join(path, "__init__.py")
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None, is_package=True)
    mod.__spec__.submodule_search_locations = [path]
    sys.modules[name] = mod
    if "." in name:
        parent, _, child = name.rpartition(".")
        setattr(sys.modules[parent], child, mod)
    return mod


def stub_module(name: str, **attrs) -> types.ModuleType:
    """A minimal module `name` in sys.modules (with a __spec__, so find_spec works)."""
    mod = types.ModuleType(name)
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    if "." in name:
        parent, _, child = name.rpartition(".")
        if parent not in sys.modules:
            stub_module(parent)
        sys.modules[parent].__path__ = getattr(sys.modules[parent], "__path__", [])
        setattr(sys.modules[parent], child, mod)
    return mod


class _Tqdm:
    """tqdm's iterator / context-manager surface, printing nothing."""

    def __init__(self, iterable=None, *args, **kwargs):
        self.iterable = iterable
        self.n = 0

    def __iter__(self):
        for x in self.iterable:
            self.n += 1
            yield x

    def __len__(self):
        return len(self.iterable)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n=1):
        self.n += n

    def set_description(self, *a, **k):
        pass

    def set_postfix(self, *a, **k):
        pass

    def close(self):
        pass

    @staticmethod
    def write(s, *a, **k):
        print(s)


def tqdm_standin() -> None:
    """`from tqdm import tqdm`, `from tqdm.auto import trange, tqdm`."""

    def trange(*args, **kwargs):
        return _Tqdm(range(*args))

    for name in ("tqdm", "tqdm.auto", "tqdm.std"):
        stub_module(name, tqdm=_Tqdm, trange=trange)


def _unavailable(what):
    def f(*args, **kwargs):
        raise RuntimeError(f"{what} is a corpus stand-in and not used by this driver")

    return f


def _deep_merge(base, head):
    """jsonmerge.merge's default strategy for JSON objects: head's keys override base's, dicts
    merged recursively."""
    if isinstance(base, dict) and isinstance(head, dict):
        out = dict(base)
        for k, v in head.items():
            out[k] = _deep_merge(base[k], v) if k in base else v
        return out
    return head


def k_diffusion_package() -> None:
    """`import k_diffusion` with stand-ins for the packages its __init__ chain imports but the
    HDiT training / sampling path never calls: dctorch (layers.py's DCT loss helper), jsonmerge
    (config.py's merge of defaults: a recursive dict merge), skimage (augmentation.py's
    transform, only for augment_prob > 0), torchdiffeq / torchsde (sampling.py's ODE and SDE
    solvers), clean-fid / clip (evaluation.py) and tqdm (progress bars). Upstream modules run
    unchanged."""
    stub_module("dctorch")
    stub_module("dctorch.functional", dct2=_unavailable("dctorch.dct2"), idct2=_unavailable("dctorch.idct2"))
    stub_module("jsonmerge", merge=_deep_merge)
    stub_module("skimage")
    stub_module("skimage.transform", AffineTransform=_unavailable("skimage.transform.AffineTransform"))
    stub_module("torchdiffeq", odeint=_unavailable("torchdiffeq.odeint"))

    class _BrownianTree:
        def __init__(self, *a, **k):
            raise RuntimeError("torchsde is a corpus stand-in")

    stub_module("torchsde", BrownianTree=_BrownianTree)
    stub_module("cleanfid")
    stub_module("cleanfid.inception_torchscript", InceptionV3W=_unavailable("InceptionV3W"))
    stub_module("clip", load=_unavailable("clip.load"))
    tqdm_standin()


def _ftfy_fix_text(text, *args, **kwargs):
    return text


class _RegexModule(types.ModuleType):
    r"""`import regex as re` for open_clip's tokenizer: Python's re, with \p{L} / \p{N} mapped to
    re's classes (the only Unicode properties its CLIP pattern uses)."""

    def __getattr__(self, name):
        return getattr(re, name)

    @staticmethod
    def compile(pattern, flags=0):
        pattern = pattern.replace(r"[\p{L}\p{N}]", r"[^\W_]").replace(r"\p{L}", r"[^\W\d_]")
        pattern = pattern.replace(r"\p{N}", r"\d")
        pattern = pattern.replace(r"[^\s\p{L}\p{N}]", r"[^\s\w]|_")
        return re.compile(pattern, flags)


def open_clip_package() -> None:
    """`import open_clip` without its optional and absent dependencies: ftfy (text fixing in the
    tokenizer: identity), regex (Python's re), tqdm (download progress), and huggingface_hub
    (only used to download; a module whose functions raise). The model, loss and config code
    run unchanged."""
    stub_module("ftfy", fix_text=_ftfy_fix_text)
    regex = _RegexModule("regex")
    regex.__spec__ = importlib.machinery.ModuleSpec("regex", None)
    sys.modules["regex"] = regex
    tqdm_standin()
    stub_module(
        "huggingface_hub",
        hf_hub_download=_unavailable("hf_hub_download"),
        snapshot_download=_unavailable("snapshot_download"),
    )


@contextlib.contextmanager
def quiet_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


__all__ = [
    "bare_package",
    "find_on_path",
    "k_diffusion_package",
    "open_clip_package",
    "pick",
    "quiet_warnings",
    "small",
    "stub_module",
    "tqdm_standin",
]

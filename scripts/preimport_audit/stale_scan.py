"""Issue 51 research (twenty-third session): every reference to a torch.cuda object the stand-in
replaced that torch's modules still hold (globals, class attributes, containers, filled caches), in the
orders of sim.py. `python scripts/preimport_audit/stale_scan.py A|B|C`. See docs/preimport_audit.md."""

import functools
import inspect
import json
import os
import sys
import types
import warnings

warnings.simplefilter("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
mode = sys.argv[1]
import standin
import torch

orig = {n: getattr(torch.cuda, n) for n in dir(torch.cuda)}
standin.in_order(mode)
patched = {n for n in orig if getattr(torch.cuda, n, None) is not orig[n]}
targets = {id(orig[n]): f"torch.cuda.{n}" for n in patched}
refs = []


def scan_c(path, v, depth, seen):
    if depth > 3 or id(v) in seen:
        return
    seen.add(id(v))
    try:
        if isinstance(v, dict):
            for k2, v2 in list(v.items()):
                if id(k2) in targets:
                    refs.append((path + "<key>", targets[id(k2)]))
                if id(v2) in targets:
                    refs.append((f"{path}[{k2!r:.50}]", targets[id(v2)]))
                if isinstance(v2, (dict, list, tuple, set, frozenset)):
                    scan_c(f"{path}[{k2!r:.50}]", v2, depth + 1, seen)
        elif isinstance(v, (list, tuple, set, frozenset)) or type(v).__name__ == "OrderedSet":
            for i, v2 in enumerate(list(v)):
                if id(v2) in targets:
                    refs.append((f"{path}[{i}]", targets[id(v2)]))
                if isinstance(v2, (dict, list, tuple, set, frozenset)):
                    scan_c(f"{path}[{i}]", v2, depth + 1, seen)
    except Exception:
        pass


def scan_ns(prefix, ns, depth, modname):
    for name, v in list(ns.items()):
        if isinstance(v, (staticmethod, classmethod)):
            v = v.__func__
        if id(v) in targets:
            refs.append((f"{prefix}.{name}", targets[id(v)]))
        elif isinstance(v, functools.partial) and id(v.func) in targets:
            refs.append((f"{prefix}.{name}", "partial " + targets[id(v.func)]))
        elif isinstance(v, (dict, list, tuple, set, frozenset)) or type(v).__name__ == "OrderedSet":
            scan_c(f"{prefix}.{name}", v, 0, set())
        elif isinstance(v, types.FunctionType):
            for i, d in enumerate(v.__defaults__ or ()):
                if id(d) in targets:
                    refs.append((f"{prefix}.{name}.__defaults__[{i}]", targets[id(d)]))
        if isinstance(v, type) and depth < 3 and getattr(v, "__module__", None) == modname:
            scan_ns(f"{prefix}.{name}", dict(vars(v)), depth + 1, modname)


for mname, mod in sorted(sys.modules.items()):
    if (
        not isinstance(mod, types.ModuleType)
        or not mname.startswith("torch")
        or mname.startswith(("torch.cuda", "torch._C"))
    ):
        continue
    try:
        d = dict(vars(mod))
    except Exception:
        continue
    scan_ns(mname, d, 0, mname)
    for n, v in d.items():
        try:
            if (
                hasattr(type(v), "cache_info")
                and not isinstance(v, type)
                and v.cache_info().currsize
                and len(inspect.signature(v).parameters) == 0
            ):
                scan_c(f"CACHE {mname}.{n}()", v(), 0, set())
        except Exception:
            pass
    for n, v in d.items():
        if isinstance(v, type) and v.__module__ == mname:
            for n2, v2 in vars(v).items():
                f = v2.__func__ if isinstance(v2, (staticmethod, classmethod)) else v2
                try:
                    if hasattr(type(f), "cache_info") and f.cache_info().currsize:
                        r = getattr(v, n2)()
                        scan_c(f"CACHE {mname}.{n}.{n2}()", r, 0, set())
                except Exception:
                    pass
print(json.dumps({"patched": sorted(patched), "stale": sorted(set(map(tuple, refs)))}))

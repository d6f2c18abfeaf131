"""Issue 51 research (twenty-third session), not used by kx: the refresh a capture child would need
after installing its torch.cuda stand-in where the parent (a warm server) imported dynamo and Inductor
first. Validated only by sim.py (69 of 69 queries as in today's order, torch 2.14 and 2.11), not by a
capture. See docs/preimport_audit.md."""

import sys

import torch


def refresh():
    out = []
    di = sys.modules["torch._dynamo.device_interface"]
    CI = di.CudaInterface
    # 1. CudaInterface staticmethods / classes bound at class definition
    for n in [
        "current_device",
        "set_device",
        "device_count",
        "stream",
        "current_stream",
        "set_stream",
        "_set_stream_by_id",
        "synchronize",
        "get_device_properties",
        "memory_allocated",
        "is_bf16_supported",
    ]:
        if n in CI.__dict__ and hasattr(torch.cuda, n):
            setattr(CI, n, staticmethod(getattr(torch.cuda, n)))
            out.append(f"CudaInterface.{n}")
    for n, src in [
        ("exchange_device", "_exchange_device"),
        ("maybe_exchange_device", "_maybe_exchange_device"),
    ]:
        if n in CI.__dict__:
            setattr(CI, n, staticmethod(getattr(torch.cuda, src)))
    for n in ["device", "Event", "Stream"]:
        setattr(CI, n, getattr(torch.cuda, n))
    # 2. device-interface registry (lazy; reset so that cuda:{i} keys follow the stand-in's device_count)
    di.device_interfaces.clear()
    di._device_initialized = False
    di.caching_worker_device_properties.clear()
    di.caching_worker_current_devices.clear()
    # 3. dynamo tables keyed by torch.cuda function objects
    vt = sys.modules["torch._dynamo.variables.torch"]
    for tbl_name in ["constant_fold_functions", "constant_fold_functions_need_guards"]:
        tbl = getattr(vt, tbl_name)
        for k in list(tbl):
            mod = getattr(k, "__module__", "") or ""
            name = getattr(k, "__name__", None)
            if mod.startswith("torch.cuda") and name and hasattr(torch.cuda, name):
                new = getattr(torch.cuda, name)
                if new is not k:
                    tbl[new] = None
    tr = sys.modules["torch._dynamo.trace_rules"]
    rule_map = tr.get_torch_obj_rule_map()  # keep polyfill entries: do NOT cache_clear()
    for m in tr.torch_name_rule_map:
        for k, v in m.items():
            if k.startswith("torch.cuda.") and ".py#" not in k:
                obj = tr.load_object(k)
                if obj is not None:
                    if tr.is_lru_cache_wrapped_function(obj):
                        obj = obj.__wrapped__
                    rule_map.setdefault(obj, v)
    # 4. 2.14-only dynamo classes / maps
    cm = sys.modules.get("torch._dynamo.variables.ctx_manager")
    m = getattr(cm, "_device_context_manager_map", None)
    if m is not None:
        for k in list(m):
            if (
                getattr(k, "__module__", "").startswith("torch.cuda")
                and getattr(torch.cuda, k.__name__, k) is not k
            ):
                m[getattr(torch.cuda, k.__name__)] = m[k]
    st = sys.modules.get("torch._dynamo.variables.streams")
    if (
        st is not None
        and hasattr(st, "CudaStreamVariable")
        and "_cpython_type" in vars(st.CudaStreamVariable)
    ):
        st.CudaStreamVariable._cpython_type = torch.cuda.Stream
    sm = getattr(st, "_stream_fn_to_variable_cls", None)
    if sm is not None:
        for k in list(sm):
            n = getattr(k, "__name__", None)
            if (
                getattr(k, "__module__", "").startswith("torch.cuda")
                and n
                and getattr(torch.cuda, n, k) is not k
            ):
                sm[getattr(torch.cuda, n)] = sm[k]
    # 5. 2.11-only: benchmarker chosen at import from torch.cuda.is_available()
    bm = sys.modules.get("torch._inductor.runtime.benchmarking")
    if bm is not None and hasattr(bm, "use_experimental_benchmarker"):
        from torch._inductor import config as ic

        want = ic.use_experimental_benchmarker and torch.cuda.is_available()
        if want != bm.use_experimental_benchmarker:
            bm.use_experimental_benchmarker = want
            new = bm.InductorBenchmarker() if want else bm.TritonBenchmarker()
            old = bm.benchmarker
            for mod in list(sys.modules.values()):
                if getattr(mod, "benchmarker", None) is old:
                    mod.benchmarker = new
    return out

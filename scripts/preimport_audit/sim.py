"""Issue 51 research (twenty-third session): 69 queries of dynamo/Inductor state about the GPU, printed as
JSON, in three orders: A = import dynamo and Inductor, then install the torch.cuda stand-in (a warm
server importing them); B = stand-in first (today's capture child); C = A plus refresh.refresh().
`python scripts/preimport_audit/sim.py A|B|C` (PYTHONPATH=/tmp/t211 for torch 2.11). See
docs/preimport_audit.md."""

import json
import os
import sys
import warnings

warnings.simplefilter("ignore")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
mode = sys.argv[1]
import standin
import torch

standin.in_order(mode)

from torch._dynamo import device_interface as di
from torch._dynamo import trace_rules as tr
from torch._dynamo.variables import torch as vt

res = {}
for n in standin.NAMES:
    f = getattr(torch.cuda, n)
    try:
        r = tr.lookup(f)
        res[f"lookup({n})"] = r.__name__ if r else None
    except Exception as e:
        res[f"lookup({n})"] = "ERR " + type(e).__name__
    res[f"{n} in constant_fold"] = f in vt.constant_fold_functions
    res[f"{n} in constant_fold_need_guards"] = f in vt.constant_fold_functions_need_guards
CI = di.CudaInterface
for n in [
    "current_device",
    "device_count",
    "get_device_properties",
    "synchronize",
    "set_device",
    "is_bf16_supported",
    "memory_allocated",
    "Event",
    "Stream",
]:
    res[f"CudaInterface.{n} is torch.cuda.{n}"] = getattr(CI, n) is getattr(torch.cuda, n)


def q(key, fn):
    try:
        res[key] = fn()
    except Exception as e:
        res[key] = "ERR " + repr(e)[:120]


q("registered", lambda: sorted(k for k, _ in di.get_registered_device_interfaces()))
q("iface(cuda).device_count()", lambda: di.get_interface_for_device("cuda").device_count())
q("iface(cuda).current_device()", lambda: di.get_interface_for_device("cuda").current_device())
q(
    "iface(cuda).get_device_properties(0).name",
    lambda: getattr(di.get_interface_for_device("cuda").get_device_properties(0), "name", None),
)
q(
    "iface(cuda).Worker.get_device_properties(0).name",
    lambda: getattr(di.get_interface_for_device("cuda").Worker.get_device_properties(0), "name", None),
)
q(
    "iface(cuda).get_compute_capability()",
    lambda: di.get_interface_for_device("cuda").get_compute_capability(),
)
q("iface(cuda).synchronize()", lambda: di.get_interface_for_device("cuda").synchronize())
q("iface(cuda).Event()", lambda: type(di.get_interface_for_device("cuda").Event()).__name__)
from torch.utils import _triton as ut

for fn in ["has_triton", "has_triton_tma_device", "has_triton_tensor_descriptor_host_tma"]:
    try:
        res[fn] = getattr(ut, fn)()
    except Exception as e:
        res[fn] = "ERR " + repr(e)[:100]
from torch._inductor import utils as iu

res["get_gpu_type"] = iu.get_gpu_type()
try:
    res["is_big_gpu(0)"] = iu.is_big_gpu(0)
except Exception as e:
    res["is_big_gpu(0)"] = "ERR " + repr(e)[:100]
bm = sys.modules["torch._inductor.runtime.benchmarking"]
res["benchmarker"] = type(bm.benchmarker).__name__
res["triton_heuristics.benchmarker"] = type(
    sys.modules["torch._inductor.runtime.triton_heuristics"].benchmarker
).__name__

print(json.dumps(res))

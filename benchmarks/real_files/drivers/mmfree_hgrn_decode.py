"""Corpus driver (kx's code): ridgerchu/matmulfreellm's fused recurrent HGRN in Triton
(mmfreelm/ops/hgrn/recurrent_fuse.py: fused_recurrent_hgrn, one program per (feature block, batch
x head) stepping through time, autotuned over block width and warps, an initial state in and a
final state out) as the MatMul-free LM's HGRNBitAttention runs it in generation (decode loop):
its layer picks mode 'fused_recurrent' for one-token inputs and carries recurrent_state between
calls. Here a stack of 6 HGRN mixers (kx's code: input / forget-gate / output-gate projections in
bf16, sigmoid gates, the repo's FusedRMSNormSwishGate (mmfreelm/modules/fused_norm_gate.py) on the
output) over batch 8, d 2048 (one head of 2048 as the repo configures it): a 256-token prompt
prefilled in one call (final states kept), then 32 decode steps of one token each, the state
passed back every step; the last step's output compared with a fresh full-sequence run."""

import _corpus11_support as S
import torch
import torch.nn as nn

S.bare_package("mmfreelm")  # not its __init__ (the HF model classes, transformers)
from mmfreelm.modules.fused_norm_gate import FusedRMSNormSwishGate  # noqa: E402
from mmfreelm.ops.hgrn.recurrent_fuse import fused_recurrent_hgrn  # noqa: E402

torch.manual_seed(0)
dev, dt = "cuda", torch.bfloat16
BATCH, DIM, LAYERS, PROMPT, STEPS = S.pick((8, 2048, 6, 256, 32), (2, 64, 2, 8, 3))


class HGRNMixer(nn.Module):
    """The HGRN token mixer's data flow (after mmfreelm/layers/hgrn_bit.py), with plain linears."""

    def __init__(self, d):
        super().__init__()
        self.i_proj = nn.Linear(d, d, bias=False)
        self.f_proj = nn.Linear(d, d, bias=False)
        self.g_proj = nn.Linear(d, d, bias=False)
        self.g_norm = FusedRMSNormSwishGate(d)
        self.o_proj = nn.Linear(d, d, bias=False)

    def forward(self, x, state=None):
        i, f = self.i_proj(x), self.f_proj(x).sigmoid()
        i = (1 - f) * nn.functional.silu(i)
        i, f = i.unsqueeze(1), f.unsqueeze(1)  # (B, 1 head, T, D)
        o, state = fused_recurrent_hgrn(i, f, initial_state=state, output_final_state=True)
        o = o.squeeze(1)
        o = self.g_norm(self.g_proj(x), o)  # as hgrn_bit.py: norm of the gate input, gated by o
        return x + self.o_proj(o), state


layers = nn.ModuleList(HGRNMixer(DIM) for _ in range(LAYERS)).to(dev, dt)


@torch.no_grad()
def run(x, states):
    new = []
    for layer, st in zip(layers, states, strict=True):
        x, st = layer(x, st)
        new.append(st)
    return x, new


tokens = torch.randn(BATCH, PROMPT + STEPS, DIM, device=dev, dtype=dt)
y, states = run(tokens[:, :PROMPT], [None] * LAYERS)
print("prefill", tuple(y.shape), "state", tuple(states[0].shape))
for step in range(STEPS):
    y, states = run(tokens[:, PROMPT + step : PROMPT + step + 1], states)
full, _ = run(tokens, [None] * LAYERS)
print(f"decode {STEPS} steps: last step vs full run rel err {S.rel_err(y[:, -1], full[:, -1]):.1e}")
torch.cuda.synchronize()
print("mmfree hgrn decode ok")

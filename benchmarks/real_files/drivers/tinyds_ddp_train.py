"""Corpus driver (kx's code): liangyuwang/Tiny-DeepSpeed's DDP example (example/ddp/train.py:
example/model.py's GPT2Model at GPTConfig's GPT-2-small defaults wrapped in
tiny_deepspeed.core.DDP, which replaces every nn.Linear / nn.LayerNorm / nn.Embedding through
zero/utils/wrapper.py's wrap_layers with the library's modules (the Linear and Embedding through
their own autograd Functions in torch ops, the LayerNorm through core/module/ops/layernorm.py's
Triton kernels) whose backward callbacks all-reduce each gradient (zero/ddp/module.py's
sync_grad), and DDPAdamW over model.named_parameters()) run as one process of world size 1 (the
default backends, NCCL for CUDA tensors; a TCP rendezvous on localhost): a few steps of
require_backward_grad_sync + forward + loss.backward() + optimizer.step() + all_reduce(loss, AVG);
the first step's loss checked against the unwrapped torch model."""

import copy
import os
import socket

import _corpus15_support as S
import torch
import torch.distributed as dist
from example.model import GPT2Model, GPTConfig
from tiny_deepspeed.core import DDP, DDPAdamW

torch.manual_seed(0)
dev = "cuda"
config = (
    GPTConfig() if not S.small() else GPTConfig(block_size=16, vocab_size=96, n_layer=2, n_head=2, n_embd=32)
)
STEPS = S.pick(5, 2)

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
dist.init_process_group(init_method=f"tcp://127.0.0.1:{port}", world_size=1, rank=0)

input = torch.randint(0, config.vocab_size, (1, config.block_size)).to(dev)
target = torch.randint(0, config.vocab_size, (1, config.block_size)).to(dev)
reference = GPT2Model(config).to(dev)
_, ref_loss = reference(input, target)
model = DDP(copy.deepcopy(reference))
print(
    f"wrapped layers: {sorted({type(m).__module__ + '.' + type(m).__name__ for m in model.modules() if 'tiny_deepspeed' in type(m).__module__})}"
)
optimizer = DDPAdamW(model.named_parameters(), lr=1e-5, weight_decay=1e-1)

for i in range(STEPS):
    model.require_backward_grad_sync = True
    _, loss = model(input, target)
    if i == 0:
        print(f"step 0 loss {loss.item():.4f} vs unwrapped torch model {ref_loss.item():.4f}")
        assert abs(loss.item() - ref_loss.item()) < 1e-3, (loss.item(), ref_loss.item())
    loss.backward()
    optimizer.step()
    dist.all_reduce(loss, op=dist.ReduceOp.AVG)
    print(f"iter {i} loss: {loss.item():.4f}")

dist.destroy_process_group()
torch.cuda.synchronize()
print("tinyds_ddp_train ok")

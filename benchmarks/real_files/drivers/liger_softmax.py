"""Corpus driver (kx's code): Liger-Kernel softmax on attention-score rows and on
GPT-2-vocabulary rows (n not a power of two), forward + backward."""

import torch
from liger_kernel.ops.softmax import LigerSoftmaxFunction

torch.manual_seed(0)
for shape in [(8, 1024, 4096), (64, 50257)]:
    x = torch.randn(*shape, device="cuda", dtype=torch.float16, requires_grad=True)
    y = LigerSoftmaxFunction.apply(x)
    y.backward(torch.randn_like(y))
torch.cuda.synchronize()
print("liger softmax ok")

"""Inductor corpus (kx's code): a convolution block (conv, batch norm, ReLU, pooling) in
inference under torch.compile, channels-last."""

import torch
import torch.nn as nn

torch.manual_seed(0)

block = (
    nn.Sequential(
        nn.Conv2d(64, 128, 3, padding=1, bias=False),
        nn.BatchNorm2d(128),
        nn.ReLU(inplace=True),
        nn.Conv2d(128, 128, 3, padding=1, bias=False),
        nn.BatchNorm2d(128),
        nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d(1),
    )
    .cuda()
    .eval()
    .to(memory_format=torch.channels_last)
)
model = torch.compile(block)
x = torch.randn(16, 64, 56, 56, device="cuda").to(memory_format=torch.channels_last)
with torch.no_grad():
    y = model(x)
torch.cuda.synchronize()
print("conv ok", tuple(y.shape))

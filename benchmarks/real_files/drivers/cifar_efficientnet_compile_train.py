"""Corpus driver (kx's code): kuangliu/pytorch-cifar's EfficientNetB0 (models/efficientnet.py:
MBConv Blocks (1x1 expansion, depthwise conv, squeeze-and-excitation (SE: adaptive pool, two 1x1
convs, sigmoid), 1x1 projection, swish = x * sigmoid(x)), drop_connect in training (a per-sample
mask filled with bernoulli_ and scaled: random ops inside the compiled graph), dropout 0.2 before
the head) trained with torch.compile on main.py's recipe (drivers/_cifar_common.py: SGD momentum
0.9, weight decay 5e-4, cosine schedule, batch 128 of CIFAR-10-sized random images, 10 steps,
then eval (drop_connect and dropout off: a recompile) on a test batch of 100 vs eager)."""

import _cifar_common
import _corpus11_support as S
from models import EfficientNetB0

_cifar_common.run("EfficientNetB0", EfficientNetB0(), steps=S.pick(10, 2))
print("cifar efficientnet compile train ok")

"""Corpus driver (kx's code): kuangliu/pytorch-cifar's ResNet18 (models/resnet.py: BasicBlock with a
1x1 conv + BN shortcut on stride / width changes, a 3x3 stem without max-pool for 32 x 32 images,
F.avg_pool2d(out, 4) before the linear head) trained with torch.compile on main.py's recipe
(drivers/_cifar_common.py: SGD momentum 0.9, weight decay 5e-4, cosine schedule, batch 128 of
CIFAR-10-sized random images, 10 steps, then eval on a test batch of 100 vs eager). The models
package's __init__ imports every model file (plain PyTorch)."""

import _cifar_common
import _corpus11_support as S
from models import ResNet18

_cifar_common.run("ResNet18", ResNet18(), steps=S.pick(10, 2))
print("cifar resnet18 compile train ok")

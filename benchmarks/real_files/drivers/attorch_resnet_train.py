"""Corpus driver (kx's code): attorch's Imagenette example (examples/imagenette/main.py)
run as `python -m examples.imagenette.main --model resnet18 --epochs 1` does, on random data
in place of the Imagenette download: main() builds resnet18(use_attorch=True) (torch Conv2d
with attorch's BatchNorm2d + fused ReLU / residual add, attorch Linear and CrossEntropyLoss),
runs its 10 warm-up train/eval iterations under autocast (fp16), benchmark_fw_and_bw (Triton's
do_bench of forward and backward), then train(): AdamW, GradScaler, OneCycleLR, one epoch of
train batches with backward through attorch's autograd Functions (batch-norm forward/backward
kernels autotuned on the batch and spatial sizes, linear forward/backward autotuned with a
tf32 heuristic, cross-entropy), and the validation loop. The data loaders are the one
stand-in (create_dls: a TensorDataset of random 224x224 images and labels, batch 32, 3 train and
2 validation batches); model, training loop and kernels run unchanged."""

import _corpus_support  # noqa: F401  (the pythonpath entries)
import examples.imagenette.main as imagenette_main  # noqa: E402
import torch
from examples.imagenette.resnet import resnet18  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def create_dls(batch_size=32, center_crop_size=256, image_size=224, num_workers=4):
    train = TensorDataset(
        torch.randn(3 * batch_size, 3, image_size, image_size), torch.randint(0, 10, (3 * batch_size,))
    )
    valid = TensorDataset(
        torch.randn(2 * batch_size, 3, image_size, image_size), torch.randint(0, 10, (2 * batch_size,))
    )
    return (
        DataLoader(train, batch_size=batch_size, shuffle=True, drop_last=True),
        DataLoader(valid, batch_size=batch_size, shuffle=False, drop_last=True),
    )


imagenette_main.create_dls = create_dls
imagenette_main.main(lambda num_classes: resnet18(True, num_classes), epochs=1, batch_size=32)
torch.cuda.synchronize()
print("attorch resnet18 train ok")

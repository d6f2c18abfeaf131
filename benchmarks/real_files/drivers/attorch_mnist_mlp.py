"""Corpus driver (kx's code): attorch's MNIST example (examples/mnist/main.py) run as
`python -m examples.mnist.main --depth 2 --epochs 1` does (its attorch run, then its PyTorch
run for comparison, as the __main__ block does), on random data in place of the MNIST download:
main() builds MLP(use_attorch=True, hidden_dim 128, depth 2) (attorch Linear with fused ReLU:
the autotuned linear forward kernel with a tf32 heuristic and its backward, attorch
CrossEntropyLoss), 10 warm-up train/eval iterations under autocast (fp16),
benchmark_fw_and_bw (do_bench), then train(): SGD, one epoch of batch 1024 with backward, the
validation loop with loss.item() / accuracy reads. The data loaders are the one stand-in
(create_dls: random 28x28 images, 3 train and 2 validation batches of 1024); model, loop and
kernels run unchanged."""

from functools import partial

import _corpus_support  # noqa: F401  (the pythonpath entries)
import examples.mnist.main as mnist_main  # noqa: E402
import torch
from examples.mnist.mlp import MLP  # noqa: E402
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


def create_dls(batch_size=1024):
    train = TensorDataset(torch.randn(3 * batch_size, 1, 28, 28), torch.randint(0, 10, (3 * batch_size,)))
    valid = TensorDataset(torch.randn(2 * batch_size, 1, 28, 28), torch.randint(0, 10, (2 * batch_size,)))
    return (
        DataLoader(train, batch_size=batch_size, shuffle=True, drop_last=True),
        DataLoader(valid, batch_size=batch_size, shuffle=False, drop_last=True),
    )


mnist_main.create_dls = create_dls
model_cls = partial(MLP, hidden_dim=128, depth=2)
mnist_main.main(partial(model_cls, use_attorch=True), epochs=1, batch_size=1024)
mnist_main.main(partial(model_cls, use_attorch=False), epochs=1, batch_size=1024)
torch.cuda.synchronize()
print("attorch mnist mlp ok")

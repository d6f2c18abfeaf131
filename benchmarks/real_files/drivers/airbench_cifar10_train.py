"""Corpus driver (kx's code): Keller Jordan's airbench94_muon.py (CIFAR-10 speedrun), run as
`python airbench94_muon.py` does but with 2 runs instead of 200 and a small random dataset in
place of the CIFAR-10 download: the module is imported (its __main__ block is not run), then
exactly its __main__ steps: model = CifarNet().cuda().to(memory_format=torch.channels_last),
model.compile(mode="max-autotune") (Inductor with autotuned Triton templates for the fp16
convolutions and matmuls), main("warmup", model) and main(0, model). Each main() builds the
CifarLoader (torch.load(..., map_location="cuda") of the dataset file, fp16 channels_last,
normalise, flip and reflect-pad augmentation, randperm batches of 2000), SGD (nesterov,
fused=True) + the file's Muon optimiser (its @torch.compile'd zeropower_via_newtonschulz5 on
each 4-D filter), init_whiten (unfold, covariance, torch.linalg.eigh), the training loop with
backward (whiten_bias_grad switching from True to False after 3 epochs: a second graph), and
the evaluation with test-time augmentation (tta_level 0 and 2). The dataset files
(cifar10/train.pt, test.pt in a temporary working directory) hold random uint8 images of the
real shape (32x32x3) and labels: 4000 train images (2 steps per epoch, 16 steps) and 2000 test
images. Expect a long compile on the GPU (max-autotune)."""

import os
import sys
import tempfile

import torch

work = tempfile.mkdtemp(prefix="airbench_")
os.makedirs(os.path.join(work, "cifar10"))
g = torch.Generator().manual_seed(0)
classes = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"]
for name, n in (("train.pt", 4000), ("test.pt", 2000)):
    torch.save(
        {
            "images": torch.randint(0, 256, (n, 32, 32, 3), dtype=torch.uint8, generator=g),
            "labels": torch.randint(0, 10, (n,), generator=g),
            "classes": classes,
        },
        os.path.join(work, "cifar10", name),
    )
sys.argv[0] = os.path.abspath(sys.argv[0])  # the module opens it after the chdir
os.chdir(work)

import airbench94_muon as ab  # noqa: E402  (reads sys.argv[0], this file, as upstream reads itself)

model = ab.CifarNet().cuda().to(memory_format=torch.channels_last)
model.compile(mode="max-autotune")
ab.print_columns(ab.logging_columns_list, is_head=True)
ab.main("warmup", model)
accs = torch.tensor([ab.main(run, model) for run in range(1)])
print(f"Mean: {accs.mean():.4f}")
print("airbench94_muon ok")

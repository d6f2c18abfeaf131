"""Corpus driver (kx's code): timm ResNet training under torch.compile (channels_last, BatchNorm in
training mode), the way timm's train.py runs it.

train.py with --model resnet26 --torchcompile --channels-last --amp --amp-dtype bfloat16
--opt sgd --smoothing 0.1 --drop-path 0.05, on random images: timm.create_model('resnet26',
num_classes=100) on the GPU in channels_last, a ClassificationTask with
LabelSmoothingCrossEntropy, create_optimizer_v2('sgd': nesterov momentum SGD, no decay on
BN/bias), task.compile(); three steps of compiled forward (convolutions, BatchNorm updating
its running stats, ReLU, residual adds, stochastic depth) -> loss.backward() ->
optimizer.step(), then one eval-mode validation pass (BatchNorm on running stats, no_grad).
"""

from functools import partial

import timm
import torch
import torch.nn as nn
from timm.loss import LabelSmoothingCrossEntropy
from timm.optim import create_optimizer_v2
from timm.task import ClassificationTask
from timm.utils import random_seed

random_seed(42, 0)
device = torch.device("cuda")
num_classes, batch_size, img_size = 100, 64, 160

model = timm.create_model("resnet26", pretrained=False, num_classes=num_classes, drop_path_rate=0.05)
model.to(device=device)
model.to(memory_format=torch.channels_last)
amp_autocast = partial(torch.autocast, device_type=device.type, dtype=torch.bfloat16)

task = ClassificationTask(
    model=model, criterion=LabelSmoothingCrossEntropy(smoothing=0.1).to(device), device=device
)
model = task.get_trainable_module()
optimizer = create_optimizer_v2(model, opt="sgd", lr=0.2, weight_decay=1e-4, momentum=0.9)
task.compile(backend="inductor", mode=None)
eval_model = task.get_eval_model()

task.get_trainable_module().train()
optimizer.zero_grad()
for step in range(3):
    input = torch.randn(batch_size, 3, img_size, img_size, device=device)
    target = torch.randint(0, num_classes, (batch_size,), device=device)
    input = input.contiguous(memory_format=torch.channels_last)
    with amp_autocast():
        result = task(input, target)
        loss = result["loss"]
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"step {step}: loss {loss.item():.4f}")

validate_loss_fn = nn.CrossEntropyLoss().to(device)
eval_model.eval()
input = torch.randn(batch_size, 3, img_size, img_size, device=device).contiguous(
    memory_format=torch.channels_last
)
target = torch.randint(0, num_classes, (batch_size,), device=device)
with torch.no_grad(), amp_autocast():
    output = eval_model(input)
    val_loss = validate_loss_fn(output, target)
torch.cuda.synchronize()
print("timm resnet train ok", tuple(output.shape), f"val {val_loss.item():.4f}")

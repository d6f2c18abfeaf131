"""Corpus driver (kx's code): timm ViT training under torch.compile, the way timm's train.py runs it.

train.py with --torchcompile (inductor, default mode) --amp --amp-dtype bfloat16 --mixup 0.8
--cutmix 1.0 --smoothing 0.1 --drop-path 0.1 --clip-grad 1.0 --model-ema, on random images:
timm.create_model('vit_small_patch16_224', depth=4, num_classes=100) on the GPU, a
ClassificationTask (SoftTargetCrossEntropy), create_optimizer_v2 (AdamW, no decay on
norms/biases/pos-embed), an EMA copy (ModelEmaV3), then task.compile() / task.compile_ema();
three steps of Mixup/CutMix -> compiled forward (fused SDPA attention, stochastic depth) ->
loss.backward() -> dispatch_clip_grad -> optimizer.step() -> EMA update, then one
validation pass of the compiled model and of the compiled EMA model (eval mode, no_grad).
"""

from functools import partial

import timm
import torch
import torch.nn as nn
from timm.data import Mixup
from timm.loss import SoftTargetCrossEntropy
from timm.optim import create_optimizer_v2
from timm.task import ClassificationTask
from timm.utils import dispatch_clip_grad, random_seed

random_seed(42, 0)
device = torch.device("cuda")
num_classes, batch_size, img_size = 100, 32, 224

model = timm.create_model(
    "vit_small_patch16_224", pretrained=False, num_classes=num_classes, depth=4, drop_path_rate=0.1
)
model.to(device=device)
amp_autocast = partial(torch.autocast, device_type=device.type, dtype=torch.bfloat16)

mixup_fn = Mixup(
    mixup_alpha=0.8,
    cutmix_alpha=1.0,
    prob=1.0,
    switch_prob=0.5,
    mode="batch",
    label_smoothing=0.1,
    num_classes=num_classes,
)
task = ClassificationTask(model=model, criterion=SoftTargetCrossEntropy().to(device), device=device)
model = task.get_trainable_module()
optimizer = create_optimizer_v2(model, opt="adamw", lr=5e-4, weight_decay=0.05)
task.setup_ema(decay=0.9998)
task.compile(backend="inductor", mode=None)
task.compile_ema(backend="inductor", mode=None)
eval_model, eval_model_ema = task.get_eval_model(), task.get_eval_model(ema=True)

task.get_trainable_module().train()
optimizer.zero_grad()
for step in range(3):
    input = torch.randn(batch_size, 3, img_size, img_size, device=device)
    target = torch.randint(0, num_classes, (batch_size,), device=device)
    input, target = mixup_fn(input, target)
    with amp_autocast():
        result = task(input, target)
        loss = result["loss"]
    loss.backward()
    dispatch_clip_grad(task.get_clip_parameters(), value=1.0, mode="norm")
    optimizer.step()
    optimizer.zero_grad()
    task.update_ema(step=step + 1)
    print(f"step {step}: loss {loss.item():.4f}")

validate_loss_fn = nn.CrossEntropyLoss().to(device)
input = torch.randn(batch_size, 3, img_size, img_size, device=device)
target = torch.randint(0, num_classes, (batch_size,), device=device)
for name, m in (("model", eval_model), ("ema", eval_model_ema)):
    m.eval()
    with torch.no_grad(), amp_autocast():
        output = m(input)
        val_loss = validate_loss_fn(output, target)
    print(f"validate {name}: loss {val_loss.item():.4f}")
torch.cuda.synchronize()
print("timm vit train ok", tuple(output.shape))

"""Corpus driver (kx's code): gau-nernst/quantized-training's INT8 quantized-training tensor
subclass on a timm ViT, as timm_finetune.py runs it with --compile: `timm.create_model(...,
num_classes=45)`, `model.bfloat16().cuda()`, `model.set_grad_checkpointing()`, every nn.Linear's
weight converted (train_utils.quantize_model's "int8_quantized_training" mode, called here
directly: subclasses/int8.py convert_int8_quantized_training with the default Int8QTConfig(): an
Int8LinearWeight wrapper subclass holding int8 data + row scales, whose __torch_function__ routes
F.linear to an autograd.Function (weight-only dequantising matmuls) and whose __torch_dispatch__
re-quantises with stochastic rounding on the optimizer's in-place updates, hands out plain
zeros_like tensors for the optimizer state and dequantises for sub / mul), then per step `loss_fn =
torch.compile(model_loss)` over F.cross_entropy(model(images), labels) through the checkpointed
blocks, loss.backward(), `loss.item()`, optimizer.step(). The optimizer is
torch.optim.AdamW(weight_decay=0, foreach=False), whose per-tensor in-place ops the subclass
implements (the repo's own low-bit optimizers need torchao / bitsandbytes). Then, as
evaluate_model does, `torch.compile(model_predict)` in eval mode under no_grad. Data made here
(random bf16 images and RESISC45's 45 labels; the script downloads the dataset). ViT-S/16 at 224,
batch 64, 4 steps. A torch.compile program with a backward pass through a tensor subclass and a
custom autograd.Function. (The int8-activation and BitNet modes are left out: at this commit they
pass scales of shapes gn_kernels' scaled_mm asserts against. The mixed-precision mode, whose
scaled_mm autotunes 25 configs for each of the ~13 matmul shapes of a ViT's forward and backward,
is driven on uniform shapes by qt_llama_int8_pretrain.)"""

import _corpus8_support as S
import timm
import torch
import torch.nn.functional as F
from subclasses import Int8QTConfig, convert_int8_quantized_training

torch.manual_seed(0)
dev = "cuda"
ARCH = S.pick("vit_small_patch16_224", "vit_tiny_patch16_224")
KW = S.pick({}, {"img_size": 32, "depth": 2})
BATCH, IMG, STEPS = S.pick((64, 224, 4), (2, 32, 2))


def model_loss(model, images, labels):
    return F.cross_entropy(model(images), labels)


def model_predict(model, images):
    return model(images).argmax(1)


modes = {"int8 quantized training": lambda m: convert_int8_quantized_training(m, config=Int8QTConfig())}
for name, convert in modes.items():
    model = timm.create_model(ARCH, pretrained=False, num_classes=45, **KW)
    model.bfloat16().cuda()
    model.set_grad_checkpointing()
    convert(model)
    optim = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0, foreach=False)
    model.train()
    for step in range(STEPS):
        images = torch.randn(BATCH, 3, IMG, IMG, device=dev).bfloat16()
        labels = torch.randint(0, 45, (BATCH,), device=dev)
        loss_fn = torch.compile(model_loss)
        loss = loss_fn(model, images, labels)
        loss.backward()
        print(f"{name} step {step} loss {loss.item():.4f}")
        optim.step()
        optim.zero_grad()
    model.eval()
    with torch.no_grad():
        preds = torch.compile(model_predict)(model, torch.randn(BATCH, 3, IMG, IMG, device=dev).bfloat16())
    print(f"{name} eval preds {preds.cpu().tolist()[:8]}")
torch.cuda.synchronize()
print("quantized-training vit train ok")

"""Corpus driver (kx's code): pytorch-labs/segment-anything-fast's SAM ViT-B
(segment_anything_fast/build_sam.py build_sam_fast_vit_b: eval, bfloat16, the image encoder
torch.compile'd) driven as its own evaluation loop (experiments/eval_combo.py
build_results_batch) drives it: the compiled image encoder on a batch of 2 preprocessed images
(sam.preprocess, cast to the model dtype), then per image SamPredictor with that image's
features (reset_image, original_size, input_size, features, is_image_set) and predict_torch of
16 single-point prompts (coords (16, 1, 2), foreground labels, multimask_output): prompt encoder
and mask decoder eager in bf16, masks upsampled to the original size and thresholded. Twice (a
second batch reuses the compiled graph). In the compiled image encoder the global-attention
blocks (64x64 tokens, head_dim 64, batch > 1) call segment_anything_fast/flash_4.py's
customflash::custom_flash_aligned, an op defined with the legacy torch.library.Library
FRAGMENT API (a Meta impl for tracing, a CUDA impl that runs the Triton _fwd_kernel_aligned:
attention with the relative-position bias rel_h/rel_w); on its first call on a GPU other than an
A100 the CUDA impl autotunes by hand: every (BLOCK_M, BLOCK_N, num_warps, num_stages) of 64/128 x
64/128 x 1/2/4/8 warps x 1..warps stages launched and timed with torch.utils.benchmark (60
configs, failures skipped), the best pickled to ./flash_4_configs.p in the working folder. The
windowed blocks (14x14 windows) take SDPA with the bias. build_sam_fast_vit_b's compile_mode is
passed as "default" (its default "max-autotune" would benchmark Inductor's GEMM templates for
minutes); random weights (checkpoint=None); images of random pixels. segment_anything_fast's
__init__ imports torchvision (the predictor's resize transform)."""

import os
import tempfile

import torch
from segment_anything_fast import SamPredictor, build_sam_fast_vit_b

os.chdir(tempfile.mkdtemp(prefix="samfast-"))  # flash_4 reads / writes ./flash_4_configs.p
torch.manual_seed(0)
sam = build_sam_fast_vit_b(checkpoint=None, compile_mode="default", dtype=torch.bfloat16).to("cuda")
predictor = SamPredictor(sam)
encoder = predictor.model.image_encoder
model_dtype = predictor.model.mask_decoder.iou_prediction_head.layers[0].weight.dtype

for round_ in range(2):
    images = torch.rand(2, 3, 1024, 1024, device="cuda") * 255
    input_image_batch = torch.stack([predictor.model.preprocess(im) for im in images]).to(model_dtype)
    features_batch = encoder(input_image_batch)
    for batch_idx in range(2):
        predictor.reset_image()
        predictor.original_size = (768, 1024)
        predictor.input_size = (768, 1024)
        predictor.features = features_batch.narrow(0, batch_idx, 1)
        predictor.is_image_set = True
        coords = (torch.rand(16, 2, device="cuda") * 768).unsqueeze(1)
        fg_labels = torch.ones((coords.size(0), 1), dtype=torch.int, device="cuda")
        masks, scores, logits = predictor.predict_torch(
            point_coords=coords, point_labels=fg_labels, multimask_output=True
        )
        print(round_, batch_idx, tuple(masks.shape), round(scores.float().mean().item(), 4))
torch.cuda.synchronize()
print("segment-anything-fast ok", os.path.exists("flash_4_configs.p"))

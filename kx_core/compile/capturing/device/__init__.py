"""The stand-in device: the GPU a capture runs the user's file on, with no GPU.

torch's GPU tensors are meta tensors that say they are on the GPU (fake_torch,
tensor_rules, aten_layouts, autocast_rules, sdpa_choice, gpu_fakes), torch.cuda and the
CUDA runtime answer as the target's board (fake_cuda, cuda_device_queries,
cuda_device_prop, cuda_hooks, elf_slots), nvidia-smi too (fake_smi), a read of data is a
placeholder or a value kx knows (placeholders, known_values), ops registered through
torch.library and torch.distributed run on it (torch_library, process_groups), and what
the file reads is recorded for the cache (reads).

A language's capture (kx_core.compile.capturing.languages) uses the device; the device
never imports a language (pyproject's import-linter contract).
"""

"""The stand-in device: the GPU a capture runs the user's file on, with no GPU.

torch's GPU tensors are meta tensors that say they are on the GPU (fake_torch,
tensor_rules, aten_layouts, autocast_rules, sdpa_choice, gpu_fakes), torch.cuda and the
CUDA runtime answer as the target's board (fake_cuda, cuda_device_queries,
cuda_device_prop, cuda_hooks, elf_slots), nvidia-smi too (fake_smi), a read of data is a
placeholder or a value kx knows (placeholders, known_values), torch.distributed runs on
it (process_groups), and what the file reads is recorded for the cache (reads). Ops
registered through torch.library are a language's capture (languages.torch_library), which
runs their GPU implementation on this device.

A language's capture (kx_core.compile.capturing.languages) uses the device; the device
never imports a language (pyproject's import-linter contract).
"""

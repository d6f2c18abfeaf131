"""The MLIR lab: Triton's passes from the wheel (pass catalog, playground, -verify-diagnostics),
LLVM's mlir-translate/opt/llc steps from its bindings (llvm_tools), a FileCheck and a lit
runner; and a captured kernel's standalone repro script (repro: `kx repro`)."""

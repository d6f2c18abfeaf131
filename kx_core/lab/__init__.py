"""The MLIR lab: Triton's passes from the wheel (pass catalog, playground), a FileCheck and
a lit runner."""

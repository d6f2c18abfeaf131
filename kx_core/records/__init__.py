"""The records every layer reads: what a compile request and its result hold
(`results`: CompileRequest, CompileResult, CompiledKernel, Diagnostic, Launch, ...) and the
compile target (`target`: parsing `cuda:90` / `hip:gfx942`, the local GPU's target).
Imports nothing of kx but `base`."""

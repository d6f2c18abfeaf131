"""Records a real run left: Triton cache and dump folders, tritonparse traces (read
lazily), opened as kx's CompileResult; and kx's capture written back as a trace."""

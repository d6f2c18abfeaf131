"""What is read from a compile: kx's kernel record, resources (registers, spills, memory), diagnostics, and the derived stages (SASS, ELF)."""

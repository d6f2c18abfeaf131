"""Reading IR: stage text parsing, source maps, lexers. No Qt, no torch, no triton."""

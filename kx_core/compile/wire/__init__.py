"""What the parent and the capture worker both read: the messages on the worker's pipe
(protocol) and the user's source file as both decode it (source_file). Below the worker
(capturing) and the parent (jobs), so neither imports the other's package for them."""

"""Luminal drills: the primitive graph (L1), e-graphs (L2), search (L3), the slab plan
(L4) and the differential test of a device runtime against the reference (L5)."""

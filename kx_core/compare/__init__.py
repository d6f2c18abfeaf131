"""Comparing two builds (issue 32): the compile side's deltas with their reasons
(`deltas`), the first divergent pass (`pipelines`), what each side names (`sides`) and
the report (`report`)."""

"""`kx sweep`: shapes x configs of one autotuned kernel, predicted first, measured where
it matters.

- space.py: shapes and config spaces (the kernel's own autotune configs, or a grid);
- driver.py: the script that runs the file's entry for one shape with a chosen config list;
- rank.py: a shape's compiled configs, pruned as the GPU would and ranked by kx's model;
- measure.py: the measuring worker (one per GPU; a simulated one without a GPU);
- dispatch.py: the pool of measuring workers and the job queue they share;
- result.py: per shape, the winner, regrets, rank accuracy, and the tuned-config table;
- request.py: what a sweep is asked; compile_side.py: one shape's compile side;
- run.py: the whole sweep, with progress and a stop flag; ray_pool.py: the same on Ray;
- errors.py: DispatchError.
"""

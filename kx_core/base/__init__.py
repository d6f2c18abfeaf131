"""kx_core.base: what every other part of the engine stands on and that imports nothing
of kx: where kx's files are (`paths`), where the external programs it runs are
(`tools`), and the data files it ships (`data`)."""

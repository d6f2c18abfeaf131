"""kx_gui: the Qt desktop app. Holds no engine logic; calls kx_core, never the reverse."""

"""One pane, one module, one public class; each subclasses panes.base.Pane."""

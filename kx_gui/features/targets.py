"""What a compile is for: Target ▸ the targets (the local GPU, CUDA and AMD archs, the C++
CPU tiers) and Target ▸ Capture GPU (the board the capture stands for)."""

from __future__ import annotations

from PySide6.QtGui import QAction, QActionGroup

from kx_core.cpu.targets import CPU_TARGETS
from kx_core.model.boards import target_for_gpu
from kx_core.model.gpu import SPECS
from kx_core.records.target import DEFAULT_TARGET, KNOWN_TARGETS, default_spec, local_target


def install(window) -> Targets:
    return Targets(window)


def target_text(target: str) -> str:
    """The session's target as the welcome page says it ('default': the local GPU's, or
    the default's)."""
    if target == "default":
        local = local_target()
        return (
            f"{local.spec} (the local GPU)" if local else f"{DEFAULT_TARGET.spec} (no local GPU: the default)"
        )
    return target


class Targets:
    def __init__(self, window) -> None:
        self.window = window
        self.session = window.session
        menus = window.menus
        self.target_group = QActionGroup(window)
        self.target_group.setExclusive(True)
        targets = list(KNOWN_TARGETS)
        local = local_target()
        labels = {t: t for t in targets}
        if local is not None:
            targets.insert(0, "local")
            labels["local"] = f"Local GPU ({local.spec})"
        # C++ CPU kernels (kx_core.cpu): the seed's ISA tiers
        targets += list(CPU_TARGETS)
        labels.update({t: f"{t} (C++ kernels)" for t in CPU_TARGETS})
        for t in targets:
            if t == CPU_TARGETS[0]:
                menus.add_separator("target.targets")
            action = QAction(labels[t], window, checkable=True)
            action.setData(t)
            action.setChecked(t == self.menu_target())
            action.triggered.connect(lambda _=False, t=t: self.set_target(t))
            self.target_group.addAction(action)
            menus.add_action("target.targets", action)
        gpu_menu = menus.add_menu("target.gpu", "Capture &GPU")
        self.gpu_group = QActionGroup(window)
        for key, label in [("", "the target's flagship"), *((k, g.name) for k, g in SPECS.items())]:
            action = QAction(label, window, checkable=True)
            action.setData(key)
            action.setChecked(key == (self.session.gpu or ""))
            action.triggered.connect(lambda _=False, k=key: self.set_gpu(k or None))
            self.gpu_group.addAction(action)
            gpu_menu.addAction(action)

    def set_target(self, target: str) -> None:
        self.window.settings.setValue("target", target)
        self.session.set_target(target)
        for action in self.target_group.actions():
            action.setChecked(action.data() == self.menu_target())
        self.window.welcome.set_target(target_text(self.session.target))

    def menu_target(self) -> str:
        """The Target menu's entry for the session's target ('default' is the local GPU
        when there is one, else cuda:90: that entry is ticked)."""
        return default_spec(self.session.target)

    def set_gpu(self, key: str | None) -> None:
        """The GPU the capture stands for; its architecture becomes the target."""
        self.window.settings.setValue("gpu", key or "")
        for action in self.gpu_group.actions():
            action.setChecked(action.data() == (key or ""))
        self.session.gpu = key
        if key:
            self.set_target(target_for_gpu(key).spec)
        elif self.session.path:
            self.session.compile()

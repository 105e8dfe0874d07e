"""The registry on a window: one QAction per :class:`ActionSpec`, menus, toolbars, live state.

``QtActions(registry, window, target_of, icon_of)`` makes every QAction (shortcut, tip, icon,
checkable and exclusive groups) and adds it to the window so its shortcut works wherever focus
is; :meth:`fill_menu_bar` and :meth:`fill_toolbar` lay them out; :meth:`refresh` re-evaluates
enablement, check state and titles against the shell's context map.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from PySide6.QtGui import QAction, QActionGroup, QIcon, QKeySequence
from PySide6.QtWidgets import QMenu, QMenuBar, QToolBar, QWidget

from luncosim_workbench.actions.registry import (
    STANDARD_KEY_PREFIX,
    ActionRegistry,
    ActionSpec,
    MenuSpec,
    evaluate,
    render_title,
)


def key_sequence(binding: str) -> QKeySequence:
    """``"Ctrl+S"``, ``"Space"`` or ``"std:Save"`` (a platform standard key) as a QKeySequence."""
    if binding.startswith(STANDARD_KEY_PREFIX):
        name = binding[len(STANDARD_KEY_PREFIX):]
        try:
            return QKeySequence(getattr(QKeySequence.StandardKey, name))
        except AttributeError:
            raise ValueError(f"unknown standard key {name!r} in keybinding {binding!r}") from None
    return QKeySequence(binding)


class QtActions:
    """QActions, menus and toolbars made from one :class:`ActionRegistry`."""

    def __init__(self, registry: ActionRegistry, window: QWidget, target_of: Callable[[str], Any],
                 icon_of: Callable[[str], QIcon]) -> None:
        self.registry = registry
        self.window = window
        self.by_id: dict[str, QAction] = {}
        self.menus: dict[str, QMenu] = {}
        groups: dict[str, QActionGroup] = {}
        for spec in registry:
            action = QAction(spec.title, window)
            action.setObjectName(f"action:{spec.id}")
            if spec.keybinding:
                action.setShortcut(key_sequence(spec.keybinding))
            if spec.tip:
                action.setToolTip(spec.tip)
                action.setStatusTip(spec.tip)
            if spec.icon:
                action.setIcon(icon_of(spec.icon))
            if spec.checked is not None:
                action.setCheckable(True)
            if spec.exclusive:
                groups.setdefault(spec.exclusive, QActionGroup(window)).addAction(action)
            owner = registry.owner(spec.id)
            action.triggered.connect(lambda _checked=False, s=spec, o=owner: s.callback(target_of(o)))
            window.addAction(action)
            self.by_id[spec.id] = action

    def __getitem__(self, action_id: str) -> QAction:
        return self.by_id[action_id]

    def __iter__(self):
        return iter(self.by_id.values())

    # ------------------------------------------------------------------ layout
    def fill_menu_bar(self, bar: QMenuBar) -> None:
        """Every top-level menu with its groups, separators and submenus (dynamic submenus are
        created empty: :attr:`menus` holds them for the shell to fill)."""
        for spec in self.registry.top_menus():
            menu = bar.addMenu(spec.title)
            menu.setObjectName(f"menu:{spec.id}")
            self.menus[spec.id] = menu
            self._fill(menu, spec.id)

    def _fill(self, menu: QMenu, menu_id: str) -> None:
        for i, group in enumerate(self.registry.menu_items(menu_id)):
            if i:
                menu.addSeparator()
            for item in group:
                if isinstance(item, MenuSpec):
                    sub = menu.addMenu(item.title)
                    sub.setObjectName(f"menu:{item.id}")
                    self.menus[item.id] = sub
                    if not item.dynamic:
                        self._fill(sub, item.id)
                else:
                    menu.addAction(self.by_id[item.id])

    def fill_toolbar(self, toolbar: QToolBar, toolbar_id: str) -> None:
        for i, group in enumerate(self.registry.toolbar_items(toolbar_id)):
            if i:
                toolbar.addSeparator()
            for spec in group:
                toolbar.addAction(self.by_id[spec.id])

    # ------------------------------------------------------------------ state
    def refresh(self, context: Mapping[str, Any]) -> None:
        """Enablement, check state and titles from ``context`` (signals blocked while checking)."""
        for spec in self.registry:
            action = self.by_id[spec.id]
            action.setEnabled(evaluate(spec.enablement, context))
            if spec.checked is not None:
                on = evaluate(spec.checked, context)
                if action.isChecked() != on:
                    blocked = action.blockSignals(True)
                    action.setChecked(on)
                    action.blockSignals(blocked)
            if "{" in spec.title:
                action.setText(render_title(spec.title, context))

    def set_icons(self, icon_of: Callable[[str], QIcon]) -> None:
        """Re-make every icon (after a theme change)."""
        for spec in self.registry:
            if spec.icon:
                self.by_id[spec.id].setIcon(icon_of(spec.icon))

    def specs(self) -> list[ActionSpec]:
        return list(self.registry)

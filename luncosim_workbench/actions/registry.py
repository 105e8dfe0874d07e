"""The declarative action registry: every command of the workbench, declared once.

An :class:`ActionSpec` says what a command is called, what it does, its shortcut, where it
appears (menus, toolbars, the command palette) and when it is enabled or checked. The shell
declares its own; each panel plugin contributes its own (``PanelSpec.actions``). Nothing here
imports Qt: :mod:`luncosim_workbench.actions.qt` turns the registry into QActions, menus and
toolbars, and the command palette lists the same actions.

Enablement and check state are *context expressions* over a flat map the shell keeps current
(``document``, ``can_undo``, ``perspective``, ``overlay.joints`` ...): ``key`` (truthy),
``!key``, ``key == value``, ``key != value``, joined with ``&&``. A title may name context values
in braces (``"&Undo {undo_label}"``); an empty value leaves no trace.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

#: A keybinding naming a platform standard key (``QKeySequence.StandardKey``): ``std:Save``.
STANDARD_KEY_PREFIX = "std:"


@dataclass(frozen=True)
class MenuPlace:
    """Where an action (or a submenu) sits: a menu or toolbar id, a group and an order in it.

    Groups are sorted by name and separated by a line (``"1_open"``, ``"2_save"``, ``"9_quit"``)."""

    menu: str
    group: str = "5_other"
    order: float = 0.0


@dataclass(frozen=True)
class MenuSpec:
    """A menu of the menu bar (no ``place``) or a submenu placed in its parent.

    ``dynamic`` menus are filled by the shell at run time (recent twins, panel toggles)."""

    id: str
    title: str
    order: float = 0.0
    place: MenuPlace | None = None
    dynamic: bool = False


@dataclass(frozen=True)
class ActionSpec:
    """One command. ``callback`` receives its target: the main window for shell actions, the
    panel widget for actions a panel contributes."""

    id: str
    title: str
    callback: Callable[[Any], object]
    keybinding: str | None = None
    menus: tuple[MenuPlace, ...] = ()
    toolbars: tuple[MenuPlace, ...] = ()
    icon: str | None = None  # a name from resources/icons.toml
    tip: str = ""
    enablement: str | None = None  # context expression
    checked: str | None = None  # context expression; makes the action checkable
    exclusive: str | None = None  # radio group id among checkable actions
    palette: bool = True

    @property
    def label(self) -> str:
        """The title as the palette lists it (no mnemonics, no context placeholders)."""
        return re.sub(r"\s*\{[^}]*\}", "", self.title).replace("&", "").strip()


class RegistryError(ValueError):
    """Two actions with one id or one keybinding, or a place naming an unknown menu."""


@dataclass
class ActionRegistry:
    """Menus and actions by id, each action with its owner (``shell`` or a panel id)."""

    _menus: dict[str, MenuSpec] = field(default_factory=dict)
    _actions: dict[str, ActionSpec] = field(default_factory=dict)
    _owners: dict[str, str] = field(default_factory=dict)

    def add_menus(self, menus: Iterable[MenuSpec]) -> None:
        for m in menus:
            if m.id in self._menus:
                raise RegistryError(f"menu {m.id!r} is declared twice")
            self._menus[m.id] = m

    def register(self, actions: Iterable[ActionSpec], owner: str = "shell") -> None:
        """Add ``actions``; an id or keybinding already taken is an error naming both owners."""
        keys = {a.keybinding: a.id for a in self._actions.values() if a.keybinding}
        for a in actions:
            if a.id in self._actions:
                raise RegistryError(f"action {a.id!r} ({owner}) is already registered by {self._owners[a.id]}")
            if a.keybinding and a.keybinding in keys:
                raise RegistryError(f"action {a.id!r} ({owner}) wants {a.keybinding}, "
                                    f"already bound to {keys[a.keybinding]!r}")
            for place in a.menus:
                if place.menu not in self._menus:
                    raise RegistryError(f"action {a.id!r} ({owner}) names unknown menu {place.menu!r}")
            self._actions[a.id] = a
            self._owners[a.id] = owner
            if a.keybinding:
                keys[a.keybinding] = a.id

    def __iter__(self) -> Iterator[ActionSpec]:
        return iter(self._actions.values())

    def __len__(self) -> int:
        return len(self._actions)

    def __getitem__(self, action_id: str) -> ActionSpec:
        return self._actions[action_id]

    def owner(self, action_id: str) -> str:
        return self._owners[action_id]

    def top_menus(self) -> list[MenuSpec]:
        return sorted((m for m in self._menus.values() if m.place is None), key=lambda m: m.order)

    def menu(self, menu_id: str) -> MenuSpec:
        return self._menus[menu_id]

    def menu_items(self, menu_id: str) -> list[list[ActionSpec | MenuSpec]]:
        """The actions and submenus of a menu, in groups (sorted by group name, then order)."""
        items: list[tuple[str, float, int, ActionSpec | MenuSpec]] = []
        for i, a in enumerate(self._actions.values()):
            for place in a.menus:
                if place.menu == menu_id:
                    items.append((place.group, place.order, i, a))
        for i, m in enumerate(self._menus.values()):
            if m.place is not None and m.place.menu == menu_id:
                items.append((m.place.group, m.place.order, i, m))
        return _grouped(items)

    def toolbar_items(self, toolbar_id: str) -> list[list[ActionSpec]]:
        items = [(p.group, p.order, i, a) for i, a in enumerate(self._actions.values())
                 for p in a.toolbars if p.menu == toolbar_id]
        return _grouped(items)


def _grouped(items: list[tuple[str, float, int, Any]]) -> list[list[Any]]:
    out: dict[str, list[Any]] = {}
    for group, _order, _i, item in sorted(items, key=lambda t: (t[0], t[1], t[2])):
        out.setdefault(group, []).append(item)
    return list(out.values())


# ---------------------------------------------------------------------------------------------
_CLAUSE = re.compile(r"^\s*(!?)\s*([\w.\-/]+)\s*(?:(==|!=)\s*(\S+))?\s*$")


def evaluate(expression: str | None, context: Mapping[str, Any]) -> bool:
    """A context expression (see the module doc); None is always true. An unknown key is false;
    a malformed clause raises :class:`ValueError` naming it."""
    if expression is None:
        return True
    for clause in expression.split("&&"):
        m = _CLAUSE.match(clause)
        if m is None:
            raise ValueError(f"malformed context expression {clause.strip()!r} in {expression!r}")
        neg, key, op, value = m.groups()
        if op is None:
            ok = bool(context.get(key))
            ok = not ok if neg else ok
        else:
            ok = (str(context.get(key, "")) == value) == (op == "==")
            ok = not ok if neg else ok
        if not ok:
            return False
    return True


def render_title(title: str, context: Mapping[str, Any]) -> str:
    """``title`` with ``{key}`` replaced by context values (missing or empty: removed)."""
    return re.sub(r"\s*\{([^}]*)\}", lambda m: (" " + str(context[m.group(1)])) if context.get(m.group(1)) else "",
                  title).strip()

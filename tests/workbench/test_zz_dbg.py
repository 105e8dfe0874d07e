import traceback

from tests.workbench.conftest import *  # noqa
from tests.workbench.test_inspector import test_edit_an_attribute_then_undo_restores_it as t


def test_x(opened, qtbot):
    try:
        t(opened, qtbot)
    except BaseException:
        open("/tmp/tb.txt", "w").write(traceback.format_exc())
        raise

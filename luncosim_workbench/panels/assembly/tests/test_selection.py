"""The prim tree and the shared selection follow each other."""

from __future__ import annotations


def test_selection_is_shared_between_tree_and_session(opened):
    editor = opened.panels["assembly"]
    opened.session.selection.set(["/PracticeYard/RoverB"])
    rows = editor.view.selectionModel().selectedRows(0)
    assert [editor.model.path_for_index(editor.proxy.mapToSource(i)) for i in rows] == ["/PracticeYard/RoverB"]
    idx = editor.proxy.mapFromSource(editor.model.index_for_path("/PracticeYard/Ground"))
    editor.view.selectionModel().select(idx, editor.view.selectionModel().SelectionFlag.ClearAndSelect
                                        | editor.view.selectionModel().SelectionFlag.Rows)
    assert opened.session.selection.paths == ("/PracticeYard/Ground",)
    assert "Ground" in opened.status_labels["selection"].text()

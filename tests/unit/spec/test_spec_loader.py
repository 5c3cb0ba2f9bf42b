"""Reading the spec folder: what is read, what is refused before it is read (issue 18).

Specs are data the user put in one folder. A symlink leading out of it is refused (following it
would compile, and snapshot, whatever file it names); a file too large to be a spec is refused
before it is parsed; and each budget of the YAML reader says which one was exceeded.
"""
from __future__ import annotations

import os

from bloomery import errors as E
from bloomery.spec import yaml_source
from bloomery.spec.documents import discover
from bloomery.spec.yaml_source import MAX_SPEC_FILE_BYTES, load_yaml
from spec_trees import Tree

SO = "mapping_orders.yaml"
BROKEN = "mapping_version: 1\nsource: [unclosed\n"   # read, it would be an error of its own


def only_error(tree: Tree) -> E.BloomeryError:
    errors = tree.errors()
    assert len(errors) == 1, "\n".join(map(str, errors))
    return errors[0]


# -- symlinks ----------------------------------------------------------------------------------
def test_a_symlinked_file_outside_the_folder_is_refused_unread(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    outside = tmp_path / "elsewhere" / "orders.yaml"
    outside.parent.mkdir()
    outside.write_text(BROKEN, encoding="utf-8")
    (tree.root / SO).unlink()
    (tree.root / SO).symlink_to(outside)
    error = only_error(tree)  # one refusal, not the YAML error reading the target would give
    assert isinstance(error, E.SpecParseError)
    assert (error.location.file, error.location.line) == (tree.display(SO), 1)
    assert "symlink" in error.message and "outside the spec folder" in error.message
    assert str(outside) in error.message and error.hint
    assert tree.root / SO not in discover(tree.root)  # nor does the plan snapshot read it


def test_a_symlinked_folder_outside_the_folder_is_refused_unread(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    outside = tmp_path / "shared_specs"
    outside.mkdir()
    (outside / "extra.yaml").write_text(BROKEN, encoding="utf-8")
    (tree.root / "shared").symlink_to(outside, target_is_directory=True)
    error = only_error(tree)
    assert isinstance(error, E.SpecParseError)
    assert error.location.file == tree.display("shared")
    assert "folder" in error.message and "outside the spec folder" in error.message and error.hint
    assert all("extra" not in p.name for p in discover(tree.root))


def test_a_dangling_symlink_leading_outside_is_refused(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    (tree.root / "gone.yaml").symlink_to(tmp_path / "nowhere.yaml")
    error = only_error(tree)
    assert error.location.file == tree.display("gone.yaml") and "outside the spec folder" in error.message


def test_symlinks_within_the_tree_are_followed_and_each_file_read_once(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    (tree.root / "orders").mkdir()
    (tree.root / SO).rename(tree.root / "orders" / SO)
    (tree.root / SO).symlink_to(os.path.join("orders", SO))           # a file link inside the tree
    (tree.root / "also_orders").symlink_to("orders", target_is_directory=True)  # a folder link inside
    (tree.root / "loop").symlink_to(".", target_is_directory=True)    # a cycle ends, it does not hang
    project = tree.check()  # read twice, the orders mapping would be a second mapping of one source
    assert set(project.entities) == {"customer", "order", "order_item"}
    names = [p.name for p in discover(tree.root)]
    assert sorted(names) == sorted(["entity_model.yaml", "mapping_customers.yaml", SO, "mapping_order_items.yaml"])


def test_a_spec_folder_reached_through_a_symlink_is_read(tmp_path):
    """The folder is compared resolved: --specs may itself be a link, and links inside it still
    lead inside it."""
    tree = Tree.copy("shop", tmp_path)
    (tree.root / "orders").mkdir()
    (tree.root / SO).rename(tree.root / "orders" / SO)
    (tree.root / SO).symlink_to(os.path.join("orders", SO))
    link = tmp_path / "specs_link"
    link.symlink_to(tree.root, target_is_directory=True)
    assert set(Tree(link).check().entities) == {"customer", "order", "order_item"}


# -- file size ---------------------------------------------------------------------------------
def test_a_file_over_the_cap_is_refused_before_parsing(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    size = MAX_SPEC_FILE_BYTES + 1
    # YAML that would take long to read (a million-odd values), so the cap is what answers
    head = "mapping_version: 1\nsource: [\n"
    body = "x,\n" * ((size - len(head)) // 3 + 1)
    (tree.root / "huge.yaml").write_text(head + body + "]\n", encoding="utf-8")
    actual = (tree.root / "huge.yaml").stat().st_size
    error = only_error(tree)
    assert isinstance(error, E.SpecParseError)
    assert (error.location.file, error.location.line) == (tree.display("huge.yaml"), 1)
    assert f"{actual:,} bytes" in error.message and f"{MAX_SPEC_FILE_BYTES:,} bytes" in error.message
    assert "alias" not in error.message and error.hint


def test_a_file_at_the_cap_is_read(tmp_path):
    tree = Tree.copy("shop", tmp_path)
    text = (tree.root / SO).read_text(encoding="utf-8")
    pad = MAX_SPEC_FILE_BYTES - len(text.encode("utf-8")) - 3
    (tree.root / SO).write_text(text + "# " + "x" * pad + "\n", encoding="utf-8")
    assert (tree.root / SO).stat().st_size == MAX_SPEC_FILE_BYTES
    assert set(tree.check().entities) == {"customer", "order", "order_item"}


# -- YAML budgets: each says which one ---------------------------------------------------------
BOMB = "".join(f"{c}: &{c} [" + ", ".join([f"*{p}"] * 10 if p else ["x"] * 10) + "]\n"
               for p, c in zip(["", "a", "b", "c", "d"], "abcde")) + "f: [" + ", ".join(["*e"] * 10) + "]\n"


def test_an_alias_bomb_is_refused_as_one():
    doc, (error,) = load_yaml(BOMB, "bomb.yaml")
    assert doc is None and "aliases" in error.message and error.hint


def test_many_plain_values_are_not_blamed_on_aliases(monkeypatch):
    monkeypatch.setattr(yaml_source._Builder, "MAX_NODES", 1_000)
    doc, (error,) = load_yaml("[" + "1, " * 2_000 + "]", "many.yaml")
    assert doc is None and "alias" not in error.message and "values" in error.message and error.hint


def test_deep_nesting_is_not_blamed_on_aliases():
    doc, (error,) = load_yaml("a: " + "[" * 250 + "]" * 250, "deep.yaml")
    assert doc is None and "alias" not in error.message and "deep" in error.message and error.hint


def test_an_ordinary_document_stays_within_every_budget():
    doc, errors = load_yaml("a: [1, 2]\nb: {c: d}\n", "ok.yaml")
    assert errors == [] and doc.value == {"a": [1, 2], "b": {"c": "d"}}

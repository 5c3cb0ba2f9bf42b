"""Issue 37, terminal text is inert: what bloomery prints as text escapes every control character
(terminal.py), so a spec or bronze value it quotes can neither act on the terminal (clear it,
retitle it, ring it) nor start a line of its own; JSON output carries the value exactly."""
from __future__ import annotations

import json
import re

from bloomery.cli import main
from bloomery.summary import build, to_text
from bloomery.terminal import inert, inert_lines

# clear the screen, retitle the window, ring, go back to the line start, then a fake line
HOSTILE = "\x1b[2J\x1b]0;owned\x07bad\roverall: ok\nok: 1 spec file(s)\x9b31m\x7f\u202e"
RAW = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def test_every_control_character_is_written_out_and_text_is_left_alone():
    c0 = "".join(map(chr, range(0x20)))
    c1 = "".join(map(chr, range(0x80, 0xA0)))
    out = inert(c0 + "\x7f" + c1 + "\u2028\u2029\u202e\u2066")
    named = {0x09: "\\t", 0x0A: "\\n", 0x0D: "\\r"}
    assert out == ("".join(named.get(i, f"\\x{i:02x}") for i in [*range(0x20), 0x7f, *range(0x80, 0xA0)])
                   + "\\u2028\\u2029\\u202e\\u2066")
    plain = "naïve café 中文 back\\slash 'quotes' \"dq\" {{ x }} ±%"
    assert inert(plain) == plain
    assert inert_lines("first\x1b[2J\nsecond\r") == "first\\x1b[2J\nsecond\\r"


def test_check_quotes_a_spec_value_inert_as_text_and_exactly_as_json(tmp_path, capsys):
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "model.yaml").write_text(
        "spec_version: 1\nentities:\n  site:\n    grain: one row per site\n    key: [site_id]\n"
        f"    fields:\n      site_id: {{type: string, tests: [{json.dumps(HOSTILE)}]}}\n")
    (specs / "sites.yaml").write_text(
        'mapping_version: 1\nsource: plant__sites\ntarget: site\nkey: {site_id: {from: "$.site_id"}}\n')
    assert main(["check", "--specs", str(specs)]) == 1
    err = capsys.readouterr().err
    assert not RAW.search(err.replace("\n", "")), repr(err)
    lines = err.splitlines()
    assert len(lines) == 2 and lines[1] == "1 error(s); nothing was written.", lines   # no line of the value's own
    assert "\\x1b[2J\\x1b]0;owned\\x07bad\\roverall: ok\\nok: 1 spec file(s)\\x9b31m\\x7f\\u202e" in lines[0]
    assert main(["check", "--specs", str(specs), "--format", "json"]) == 1
    (error,) = json.loads(capsys.readouterr().out)
    assert HOSTILE in error["message"]


def test_summary_text_writes_an_engine_message_inert():
    message = f"Conversion Error: Could not convert string '{HOSTILE}' to INT64\n\nLINE 19: cast(...)"
    summary = build([], [], {"results": [{"unique_id": "model.shop.meter__staged", "status": "error",
                                          "message": message}]})
    # the first line of dbt's message, split at dbt's newlines only: the value's CR stays in it
    assert summary["errors"][0]["message"] == "Conversion Error: Could not convert string '\x1b[2J\x1b]0;owned\x07bad\roverall: ok"
    text = to_text(summary)
    assert not RAW.search(text.replace("\n", "")), repr(text)
    assert text.splitlines()[-1] == "overall: error"
    assert "  ERROR meter__staged: Conversion Error: Could not convert string '\\x1b[2J\\x1b]0;owned\\x07bad\\roverall: ok" \
        in text.splitlines()


def test_invisible_characters_are_visible():
    # helper-20: a bronze column `zero\u200bwidth` printed as `zerowidth`
    assert inert("zero\u200bwidth \u200d \u200e \u2060 \ufeff") == "zero\\u200bwidth \\u200d \\u200e \\u2060 \\ufeff"

"""The portable regex subset of `pattern` rules (spec reference 3.4)."""
from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bloomery.errors import BloomeryError
from bloomery.guardrails.regex_subset import PortableRegexError, check_portable_regex

ACCEPTED = [
    r"^[A-Z]{3}-[0-9]{3}$",
    r"^[^@ ]+@[^@ ]+\.[a-z]{2,}$",
    r"^a$|^b$",
    r"^(?:ab)+$",
    r"^\d{4}-\d{2}-\d{2}$",
    r"^[\w.-]+$",
    r"^\$[0-9]+$",
    r"^$",
    r"^.$",
    r"^\D\W\S$",
    r"^[\d\s_]+$",
    r"^[\t\n\r]*$",
    r"^[-a-z]$",
    r"^[a-z-]$",
    r"^[^-]$",
    r"^[a^$.*+?(){}|]$",
    r"^\(\)\[\]\{\}\*\+\?\|\^\\\.$",
    r"^(?:a|b)*$",
    r"^(?:ab|cd)+$",
    r"^(?:(?:ab)|(?:cd)){2,}$",
    r"^(?:a|bb){2,5}$",
    r"^(?:[a-z]+\.){1,3}[a-z]+$",
    r"^(?:ab)?$",
    r"^a{0}b{255}$",
    r"^(?:a{10}){100}$",
    r"^[0-9]{5}$|^[0-9]{5}-[0-9]{4}$",
    "^café$",
    r"^\_$",
]


@pytest.mark.parametrize("pattern", ACCEPTED)
def test_accepted(pattern):
    check_portable_regex(pattern)
    re.compile(pattern)


REFUSED = [
    # groups other than (?:...)
    (r"^(ab)$", "capturing group"),
    (r"^(?=a)a$", "lookahead"),
    (r"^(?!a)b$", "lookahead"),
    (r"^(?<=a)b$", "lookbehind"),
    (r"^(?<!a)b$", "lookbehind"),
    (r"^(?P<x>a)$", "named group"),
    (r"^(?<x>a)$", "named group"),
    (r"^(?>a)$", "atomic group"),
    (r"(?i)^a$", "inline flags"),
    (r"^(?i:a)$", "inline flags"),
    (r"^(?#note)a$", "comment"),
    (r"^(?(1)a|b)$", "conditional"),
    (r"^(?|a)$", "unknown group"),
    # escapes
    (r"^(?:a)\1$", "backreference"),
    (r"^\k<x>$", "backreference"),
    (r"^(?P=x)$", "backreference"),
    (r"\Aa$", "\\A anchor"),
    (r"^a\Z", "\\Z anchor"),
    (r"^a\z", "\\z anchor"),
    (r"^\ba$", "word boundary"),
    (r"^a\B$", "non-word boundary"),
    (r"^\Ga$", "\\G anchor"),
    (r"^\p{L}$", "unicode property"),
    (r"^\P{L}$", "unicode property"),
    (r"^\x41$", "hex escape"),
    (r"^\u0041$", "unicode escape"),
    (r"^\N{DIGIT ONE}$", "named character escape"),
    (r"^\0$", "octal escape"),
    (r"^\q$", "unknown escape"),
    (r"^\f$", "unknown escape"),
    (r"^\ $", "unknown escape"),
    ("^a\\", "trailing backslash"),
    # classes
    (r"^[[:alpha:]]$", "POSIX class"),
    (r"^[:alpha:]$", "POSIX class"),
    (r"^[[.a.]]$", "POSIX class"),
    (r"^[]$", "empty class"),
    (r"^[^]$", "empty class"),
    (r"^[\D]$", "negated shorthand in class"),
    (r"^[\W]$", "negated shorthand in class"),
    (r"^[a-\d]$", "shorthand in range"),
    (r"^[\w-.]$", "shorthand in range"),
    (r"^[z-a]$", "reversed range"),
    (r"^[a-z-0]$", "ambiguous hyphen"),
    (r"^[a--]$", "set operation"),
    (r"^[a&&b]$", "set operation"),
    (r"^[a[b]]$", "nested class"),
    (r"^[ab$", "unbalanced bracket"),
    (r"^ab]$", "unbalanced bracket"),
    # quantifiers
    (r"^a*?$", "lazy quantifier"),
    (r"^a+?$", "lazy quantifier"),
    (r"^a??$", "lazy quantifier"),
    (r"^a{1,2}?$", "lazy quantifier"),
    (r"^a*+$", "possessive quantifier"),
    (r"^a?+$", "possessive quantifier"),
    (r"^a{2}+$", "possessive quantifier"),
    (r"^a**$", "quantifier on a quantifier"),
    (r"^a{2}{3}$", "quantifier on a quantifier"),
    (r"^a+*$", "quantifier on a quantifier"),
    (r"^(?:a+)+$", "variable-length repeated group"),
    (r"^(?:a|bb)*$", "variable-length repeated group"),
    (r"^(?:a?b)+$", "variable-length repeated group"),
    (r"^(?:ab|c){2,}$", "variable-length repeated group"),
    (r"^(?:a?){5}$", "repeated group that can match empty"),
    (r"^*a$", "nothing to repeat"),
    (r"^(?:+a)$", "nothing to repeat"),
    (r"^a$|^?b$", "nothing to repeat"),
    (r"^a$*", "nothing to repeat"),
    (r"^a{3,2}$", "reversed quantifier bounds"),
    (r"^a{,3}$", "malformed quantifier"),
    (r"^a{x}$", "malformed quantifier"),
    (r"^a{2$", "malformed quantifier"),
    (r"^a}$", "unbalanced brace"),
    (r"^a{256}$", "repeat count too large"),
    (r"^(?:a{11}){100}$", "repeat count too large"),
    # groups, structure
    (r"^(?:ab$", "anchor inside group"),
    (r"^(?:ab", "unbalanced parenthesis"),
    (r"^ab)$", "unbalanced parenthesis"),
    (r")", "unbalanced parenthesis"),
    (r"^(?:)$", "empty group"),
    (r"^(?:a|)$", "empty alternative"),
    (r"^a$|", "empty alternative"),
    (r"|^a$", "empty alternative"),
    ("", "empty pattern"),
    ("^a\x00$", "control character"),
    # anchoring
    (r"[0-9]{5}", "unanchored pattern"),
    (r"^[0-9]{5}", "unanchored pattern"),
    (r"[0-9]{5}$", "unanchored pattern"),
    (r"a|b", "unanchored pattern"),
    (r"^a|b$", "unanchored pattern"),
    (r"^a$|b", "unanchored pattern"),
    (r"^(?:a|b)", "unanchored pattern"),
    (r"^(?:^a)$", "anchor inside group"),
    (r"^(?:a$)", "anchor inside group"),
    (r"^a^b$", "misplaced anchor"),
    (r"^a$b$", "misplaced anchor"),
    (r"^^a$", "misplaced anchor"),
]


@pytest.mark.parametrize("pattern,construct", REFUSED)
def test_refused_by_name(pattern, construct):
    with pytest.raises(PortableRegexError) as info:
        check_portable_regex(pattern)
    error = info.value
    assert error.construct == construct
    assert isinstance(error, BloomeryError)  # one error root (errors.py)
    message = str(error)
    assert message.startswith(construct)
    assert "\n" not in message
    assert error.position is None or 0 <= error.position <= len(pattern)


def test_unanchored_message_suggests_the_anchored_form():
    with pytest.raises(PortableRegexError, match=re.escape("write ^[0-9]{5}$")) as info:
        check_portable_regex("[0-9]{5}")
    assert info.value.position == 0


def test_unanchored_alternation_suggests_a_pair_per_branch():
    with pytest.raises(PortableRegexError, match=re.escape("write ^a$|^b$")):
        check_portable_regex("^a|b$")


def test_capturing_group_says_what_to_write_and_where():
    with pytest.raises(PortableRegexError, match=re.escape("use (?:...)")) as info:
        check_portable_regex(r"^x(ab)$")
    assert info.value.position == 2
    assert "at position 2" in str(info.value)


def test_position_points_at_the_construct():
    cases = {r"^ab\b$": 3, r"^a*?$": 3, r"^[z-a]$": 3, r"^(?:a+)+$": 7, r"^a$|b": 4}
    for pattern, position in cases.items():
        with pytest.raises(PortableRegexError) as info:
            check_portable_regex(pattern)
        assert info.value.position == position, pattern


def test_structural_problems_are_named_before_missing_anchors():
    with pytest.raises(PortableRegexError) as info:
        check_portable_regex(r"(a)")
    assert info.value.construct == "capturing group"


def test_deep_nesting_is_refused_not_a_recursion_error():
    with pytest.raises(PortableRegexError) as info:
        check_portable_regex("^" + "(?:" * 500 + "a" + ")" * 500 + "$")
    assert info.value.construct == "nesting too deep"


def test_non_string_is_refused():
    with pytest.raises(PortableRegexError):
        check_portable_regex(12345)  # type: ignore[arg-type]


def _refuses_only_by_name(pattern: str) -> None:
    try:
        check_portable_regex(pattern)
    except PortableRegexError as error:
        assert error.construct and isinstance(error.construct, str)
        assert error.position is None or 0 <= error.position <= len(pattern)
    else:
        re.compile(pattern)  # accepted means Python's re accepts it too


@settings(max_examples=2000)
@given(st.text())
def test_arbitrary_text_only_ever_raises_portable_regex_error(pattern):
    _refuses_only_by_name(pattern)


# The same property over regex-heavy text, which reaches far deeper into the parser than
# uniformly random characters do.
_REGEX_ALPHABET = st.sampled_from(
    list("^$|()?:*+{}[]-.,\\abdwsDWSnt0129<=!#P") + ["(?:", "{2}", "{1,3}", "[^", "[a-z]"]
)


@settings(max_examples=2000)
@given(st.lists(_REGEX_ALPHABET, max_size=20).map("".join))
def test_regex_shaped_text_only_ever_raises_portable_regex_error(pattern):
    _refuses_only_by_name(pattern)


@settings(max_examples=500)
@given(st.lists(st.sampled_from(["a", "b", "[0-9]", r"\d", ".", "(?:ab)", "(?:a|b)"]), min_size=1,
                max_size=6),
       st.sampled_from(["", "*", "+", "?", "{2}", "{1,3}", "{2,}"]))
def test_generated_anchored_patterns_are_accepted(atoms, quantifier):
    pattern = "^" + "".join(atom + quantifier for atom in atoms) + "$"
    check_portable_regex(pattern)

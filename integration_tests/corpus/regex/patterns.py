"""The portable regex subset, run on every engine against the same strings
(tests/integration/test_regex_portability.py).

PATTERNS: every accepted form of python/bloomery/rules/regex_subset.py (literals, `.`, classes,
ranges, negated classes, \\d \\w \\s and their negations, escaped punctuation, \\t \\n \\r, the
quantifiers * + ? {n} {n,} {n,m}, alternation, non-capturing groups), each anchored as the subset
requires. STRINGS: plain ASCII, the edges of each class, and the characters the engines are known
to read differently: newline (and the other line breaks), vertical tab, non-ASCII letters, digits
and spaces.
"""
PATTERNS = [
    r"^abc$",
    r"^a.c$",
    r"^.*$",
    r"^.+$",
    r"^[0-9]{5}$",
    r"^[0-9]{2,4}$",
    r"^[0-9]{3,}$",
    r"^[A-Za-z]+$",
    r"^[^0-9]*$",
    r"^[a-c]?x$",
    r"^\d+$",
    r"^\D+$",
    r"^\w+$",
    r"^\W+$",
    r"^\s*$",
    r"^\S+$",
    r"^a\sb$",
    r"^[\d\s]+$",
    r"^[\w-]+$",
    r"^[^\s]+$",
    r"^\.$",
    r"^\$\d+\.\d{2}$",
    r"^\(\d{3}\) \d{3}-\d{4}$",
    r"^a\tb$",
    r"^a\nb$",
    r"^a\rb$",
    r"^(?:ab)+$",
    r"^(?:a|b)*c$",
    r"^[a-z]+(?:\.[a-z]{3})*$",
    r"^[A-Z]{2}[0-9]{2}(?: ?[0-9]{4}){4}$",
    r"^yes$|^no$",
    r"^(?:yes|no)$",
    r"^a$|^b$|^$",
    r"^[+-]?\d+(?:\.\d+)?$",
    r"^[^@\s]+@[^@\s]+\.[a-z]{2,}$",
    r"^SKU-(?:S|M|L|XL)$",
    r"^[\[\]]+$",
    r"^[\^a]+$",
    r"^x*y?z+$",
    r"^.{3}$",
    r"^[.]+$",
    r"^\*+$",
]

STRINGS = [
    "", "abc", "abd", "a.c", "axc", "12345", "1234", "123", "12", "abcDEF", "a b", "a\tb", "a\nb", "a\rb",
    "a\x0bb", "a\u2028b", "a\u0085b", "x", "ax", "ababab", "aabbc", "c", "foo.bar.baz", "DE44 5001 0517 5407 3249 31",
    "DE44500105175407324931", "yes", "no", "maybe", "-12.50", "+7", "$12.99", "(555) 123-4567", "jane@example.org",
    "jane@example", "SKU-XL", "SKU-XXL", "[]][", "^a^", "xxyzz", "z", "...", "***", "café", "é", "٣٤٥", "\u00a0",
    "a\u00a0b", "ÀB", "x\n", "\n",
]

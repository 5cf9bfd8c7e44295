"""DynamoDB's condition, key-condition, projection and update expressions, parsed and evaluated on items in the
wire format ({"S": "x"}, {"N": "1"}, {"M": {...}} …), as DynamoDB does: the embedded store (store/embedded.py)
runs them. Pure: no I/O.

Hand-written rather than borrowed: the one complete implementation in Python is moto's, internal to a test
library (its parser and executors are no public API, and would bring the mock framework into the venue's
runtime). tests/integration/test_expressions_conformance.py runs the same operations here and on DynamoDB Local
and moto and compares results and conditional failures.

Anything outside the grammar raises ValidationError (the store answers ValidationException): nothing is ignored.
"""
from __future__ import annotations

import re
from decimal import Context, Decimal, InvalidOperation
from functools import lru_cache
from pathlib import Path
from typing import Any

_NUMBERS = Context(prec=38)   # DynamoDB's numbers: up to 38 digits of precision


class ValidationError(Exception):
    """A request DynamoDB refuses with ValidationException (bad syntax, wrong types, missing placeholders …)."""


@lru_cache(maxsize=1)
def reserved_words() -> frozenset[str]:
    """DynamoDB's reserved words (its documentation's list): a bare attribute name that is one is refused."""
    text = (Path(__file__).with_name("reserved_words.txt")).read_text()
    return frozenset(w.strip().upper() for w in text.split() if w.strip())


# -- tokens
_TOKEN = re.compile(r"""\s*(?:
    (?P<name>\#[A-Za-z0-9_]+) | (?P<value>:[A-Za-z0-9_]+) | (?P<ident>[A-Za-z_][A-Za-z0-9_]*) |
    (?P<number>[0-9]+) | (?P<op><>|<=|>=|=|<|>|\(|\)|,|\.|\[|\]|\+|-) )""", re.X)
_KEYWORDS = {"AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE"}
_BOOL_FUNCTIONS = {"attribute_exists", "attribute_not_exists", "attribute_type", "begins_with", "contains"}
_TYPES = {"S", "SS", "N", "NS", "B", "BS", "BOOL", "NULL", "L", "M"}


def _tokens(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    text = text.rstrip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m or m.end() == pos:
            raise ValidationError(f'Invalid expression: Syntax error; token: "{text[pos:].strip()[:10]}", '
                                  f"near: \"{text[max(0, pos - 10):pos + 10]}\"")
        kind = m.lastgroup
        word = m.group(kind)
        if kind == "ident" and word.upper() in _KEYWORDS:
            kind = "kw"
            word = word.upper()
        out.append((kind, word))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.names: set[str] = set()
        self.values: set[str] = set()

    # helpers
    def peek(self, k: int = 0) -> tuple[str, str] | None:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def take(self) -> tuple[str, str]:
        tok = self.peek()
        if tok is None:
            raise ValidationError(f"Invalid expression: Syntax error; token: <EOF>, near: \"{self.text[-20:]}\"")
        self.i += 1
        return tok

    def is_(self, kind: str, word: str | None = None, k: int = 0) -> bool:
        tok = self.peek(k)
        return tok is not None and tok[0] == kind and (word is None or tok[1] == word)

    def expect(self, kind: str, word: str | None = None) -> str:
        tok = self.take()
        if tok[0] != kind or (word is not None and tok[1] != word):
            raise ValidationError(f'Invalid expression: Syntax error; token: "{tok[1]}", near: "{self.text[:40]}"')
        return tok[1]

    def end(self) -> None:
        if self.peek() is not None:
            raise ValidationError(f'Invalid expression: Syntax error; token: "{self.peek()[1]}", '
                                  f'near: "{self.text[:40]}"')

    # paths and operands
    def path(self) -> tuple:
        parts: list[Any] = [self._name()]
        while True:
            if self.is_("op", "."):
                self.take()
                parts.append(self._name())
            elif self.is_("op", "["):
                self.take()
                parts.append(int(self.expect("number")))
                self.expect("op", "]")
            else:
                return ("path", tuple(parts))

    def _name(self) -> str:
        kind, word = self.take()
        if kind == "name":
            self.names.add(word)
            return word
        if kind == "ident":
            if word.upper() in reserved_words():
                raise ValidationError("Invalid expression: Attribute name is a reserved keyword; reserved keyword: "
                                      f"{word}")
            return word
        raise ValidationError(f'Invalid expression: Syntax error; token: "{word}", near: "{self.text[:40]}"')

    def operand(self) -> tuple:
        if self.is_("value"):
            word = self.take()[1]
            self.values.add(word)
            return ("val", word)
        if self.is_("ident", "size") and self.is_("op", "(", 1):
            self.take(), self.take()
            p = self.path()
            self.expect("op", ")")
            return ("size", p)
        if self.is_("ident") and self.is_("op", "(", 1):
            raise ValidationError(f"Invalid expression: Invalid function name; function: {self.peek()[1]}")
        return self.path()

    # conditions
    def condition(self) -> tuple:
        left = self._and()
        while self.is_("kw", "OR"):
            self.take()
            left = ("or", left, self._and())
        return left

    def _and(self) -> tuple:
        left = self._not()
        while self.is_("kw", "AND"):
            self.take()
            left = ("and", left, self._not())
        return left

    def _not(self) -> tuple:
        if self.is_("kw", "NOT"):
            self.take()
            return ("not", self._not())
        return self._primary()

    def _primary(self) -> tuple:
        if self.is_("op", "("):
            self.take()
            inner = self.condition()
            self.expect("op", ")")
            if inner[0] == "group":
                raise ValidationError("Invalid ConditionExpression: The expression has redundant parentheses;")
            return ("group", inner)
        if self.is_("ident") and self.is_("op", "(", 1) and self.peek()[1] in _BOOL_FUNCTIONS:
            fn = self.take()[1]
            self.take()
            args = [self.operand()]
            while self.is_("op", ","):
                self.take()
                args.append(self.operand())
            self.expect("op", ")")
            want = 1 if fn in ("attribute_exists", "attribute_not_exists") else 2
            if len(args) != want:
                raise ValidationError(f"Invalid ConditionExpression: Incorrect number of operands for operator or "
                                      f"function; operator or function: {fn}, number of operands: {len(args)}")
            if fn in ("attribute_exists", "attribute_not_exists", "attribute_type") and args[0][0] != "path":
                raise ValidationError(f"Invalid ConditionExpression: Operator or function requires a document path; "
                                      f"operator or function: {fn}")
            return ("fn", fn, tuple(args))
        left = self.operand()
        tok = self.peek()
        if tok and tok[0] == "op" and tok[1] in ("=", "<>", "<", "<=", ">", ">="):
            self.take()
            return ("cmp", tok[1], left, self.operand())
        if self.is_("kw", "BETWEEN"):
            self.take()
            low = self.operand()
            self.expect("kw", "AND")
            return ("between", left, low, self.operand())
        if self.is_("kw", "IN"):
            self.take()
            self.expect("op", "(")
            options = [self.operand()]
            while self.is_("op", ","):
                self.take()
                options.append(self.operand())
            self.expect("op", ")")
            return ("in", left, tuple(options))
        raise ValidationError(f'Invalid expression: Syntax error; token: "{tok[1] if tok else "<EOF>"}", '
                              f'near: "{self.text[:40]}"')

    # updates
    def update(self) -> dict[str, list]:
        clauses: dict[str, list] = {}
        while self.peek() is not None:
            kind, word = self.take()
            if kind != "kw" or word not in ("SET", "REMOVE", "ADD", "DELETE"):
                raise ValidationError(f'Invalid UpdateExpression: Syntax error; token: "{word}", '
                                      f'near: "{self.text[:40]}"')
            if word in clauses:
                raise ValidationError(f'Invalid UpdateExpression: The "{word}" section can only be used once in an '
                                      "update expression;")
            actions = clauses[word] = [self._action(word)]
            while self.is_("op", ","):
                self.take()
                actions.append(self._action(word))
        if not clauses:
            raise ValidationError("Invalid UpdateExpression: The expression can not be empty;")
        return clauses

    def _action(self, clause: str) -> tuple:
        target = self.path()
        if clause == "REMOVE":
            return (target,)
        if clause == "SET":
            self.expect("op", "=")
            first = self._set_operand()
            if self.is_("op", "+") or self.is_("op", "-"):
                op = self.take()[1]
                return (target, ("arith", op, first, self._set_operand()))
            return (target, first)
        value = self.operand()
        if value[0] != "val":
            raise ValidationError(f"Invalid UpdateExpression: Syntax error; {clause} needs a value placeholder")
        return (target, value)

    def _set_operand(self) -> tuple:
        if self.is_("ident") and self.is_("op", "(", 1):
            fn = self.take()[1]
            if fn not in ("if_not_exists", "list_append"):
                raise ValidationError(f"Invalid UpdateExpression: Invalid function name; function: {fn}")
            self.take()
            a = self.path() if fn == "if_not_exists" else self._set_operand()
            self.expect("op", ",")
            b = self._set_operand()
            self.expect("op", ")")
            return ("fn", fn, (a, b))
        return self.operand()


class Parsed:
    """An expression's tree and the placeholders it uses."""

    def __init__(self, tree, names: set[str], values: set[str]):
        self.tree, self.names, self.values = tree, frozenset(names), frozenset(values)


@lru_cache(maxsize=4096)
def parse_condition(text: str) -> Parsed:
    p = _Parser(text)
    tree = p.condition()
    p.end()
    return Parsed(tree, p.names, p.values)


@lru_cache(maxsize=4096)
def parse_update(text: str) -> Parsed:
    p = _Parser(text)
    tree = p.update()
    p.end()
    return Parsed(tree, p.names, p.values)


@lru_cache(maxsize=1024)
def parse_projection(text: str) -> Parsed:
    p = _Parser(text)
    paths = [p.path()]
    while p.is_("op", ","):
        p.take()
        paths.append(p.path())
    p.end()
    return Parsed(tuple(paths), p.names, p.values)


def check_placeholders(parsed: list[Parsed], names: dict | None, values: dict | None) -> None:
    """Every placeholder defined and every one defined used, as DynamoDB requires of a request."""
    used_names = set().union(*(p.names for p in parsed)) if parsed else set()
    used_values = set().union(*(p.values for p in parsed)) if parsed else set()
    names, values = names or {}, values or {}
    if missing := sorted(used_names - set(names)):
        raise ValidationError(f"Invalid expression: An expression attribute name used in the document path is not "
                              f"defined; attribute name: {missing[0]}")
    if missing := sorted(used_values - set(values)):
        raise ValidationError(f"Invalid expression: An expression attribute value used in expression is not defined; "
                              f"attribute value: {missing[0]}")
    if unused := sorted(set(names) - used_names):
        raise ValidationError("Value provided in ExpressionAttributeNames unused in expressions: "
                              f"keys: {{{', '.join(unused)}}}")
    if unused := sorted(set(values) - used_values):
        raise ValidationError("Value provided in ExpressionAttributeValues unused in expressions: "
                              f"keys: {{{', '.join(unused)}}}")
    for v in values.values():
        check_value(v)


# -- values
def number(text: str) -> Decimal:
    try:
        d = Decimal(text)
    except (InvalidOperation, TypeError):
        raise ValidationError(f"The parameter cannot be converted to a numeric value: {text}") from None
    if not d.is_finite():
        raise ValidationError(f"The parameter cannot be converted to a numeric value: {text}")
    return d


def number_text(d: Decimal) -> str:
    """A number as DynamoDB gives it back: no exponent, no trailing zeros."""
    d = _NUMBERS.plus(d)
    if abs(d.adjusted()) > 125 and d != 0:
        raise ValidationError("Number overflow. Attempting to store a number with magnitude larger than supported "
                              "range")
    if d == 0:
        return "0"
    out = format(d.normalize(_NUMBERS), "f")
    return out


def check_value(v: Any) -> None:
    """A wire-format value DynamoDB accepts (one type; sets non-empty and without duplicates; numbers valid)."""
    if not isinstance(v, dict) or len(v) != 1:
        raise ValidationError("Supplied AttributeValue has more than one datatypes set, must contain exactly one of "
                              "the supported datatypes")
    (t, x), = v.items()
    if t not in _TYPES:
        raise ValidationError(f"Supplied AttributeValue is of an unknown type: {t}")
    if t == "N":
        number(x)
    elif t in ("SS", "NS", "BS"):
        if not x:
            raise ValidationError("One or more parameter values were invalid: An string set  may not be empty")
        if t == "NS":
            nums = [number(n) for n in x]
            if len(set(nums)) != len(nums):
                raise ValidationError("Input collection contains duplicates")
        elif len(set(x)) != len(x):
            raise ValidationError("Input collection contains duplicates")
    elif t == "L":
        for e in x:
            check_value(e)
    elif t == "M":
        for e in x.values():
            check_value(e)


def normalised(v: dict) -> dict:
    """A value as stored: numbers in DynamoDB's form (sets and maps inside too)."""
    (t, x), = v.items()
    if t == "N":
        return {"N": number_text(number(x))}
    if t == "NS":
        return {"NS": [number_text(number(n)) for n in x]}
    if t == "L":
        return {"L": [normalised(e) for e in x]}
    if t == "M":
        return {"M": {k: normalised(e) for k, e in x.items()}}
    return v


def equal(a: dict | None, b: dict | None) -> bool:
    if a is None or b is None:
        return False
    (ta, xa), = a.items()
    (tb, xb), = b.items()
    if ta != tb:
        return False
    if ta == "N":
        return number(xa) == number(xb)
    if ta == "NS":
        return {number(n) for n in xa} == {number(n) for n in xb}
    if ta in ("SS", "BS"):
        return set(xa) == set(xb)
    if ta == "L":
        return len(xa) == len(xb) and all(equal(p, q) for p, q in zip(xa, xb))
    if ta == "M":
        return xa.keys() == xb.keys() and all(equal(xa[k], xb[k]) for k in xa)
    return xa == xb


def _ordered(v: dict):
    """A scalar's sort value (numbers by value, strings by their UTF-8 bytes, binaries by bytes) or None."""
    (t, x), = v.items()
    if t == "N":
        return ("N", number(x))
    if t == "S":
        return ("S", x.encode())
    if t == "B":
        return ("B", bytes(x))
    return None


def _compare(op: str, a: dict | None, b: dict | None) -> bool:
    if op == "=":
        return equal(a, b)
    if op == "<>":   # an attribute the item lacks differs from any value
        return not equal(a, b)
    if a is None or b is None:
        return False
    oa, ob = _ordered(a), _ordered(b)
    if oa is None or ob is None or oa[0] != ob[0]:
        return False
    return {"<": oa[1] < ob[1], "<=": oa[1] <= ob[1], ">": oa[1] > ob[1], ">=": oa[1] >= ob[1]}[op]


def _size(v: dict | None) -> dict | None:
    if v is None:
        return None
    (t, x), = v.items()
    if t == "S":   # in characters, as DynamoDB Local counts (tests/integration/test_expressions_conformance.py)
        return {"N": str(len(x))}
    if t in ("B", "L", "M", "SS", "NS", "BS"):
        return {"N": str(len(x))}
    return None


# -- paths
def resolve(item: dict, path: tuple, names: dict) -> dict | None:
    """The value at a document path of an item, or None."""
    cur: Any = None
    for k, part in enumerate(path[1]):
        if k == 0:
            cur = item.get(_attr(part, names))
            continue
        if cur is None:
            return None
        if isinstance(part, int):
            lst = cur.get("L")
            cur = lst[part] if lst is not None and part < len(lst) else None
        else:
            m = cur.get("M")
            cur = m.get(_attr(part, names)) if m is not None else None
    return cur


def _attr(part: str, names: dict) -> str:
    if part.startswith("#"):
        try:
            return names[part]
        except KeyError:
            raise ValidationError(f"Invalid expression: An expression attribute name used in the document path is "
                                  f"not defined; attribute name: {part}") from None
    return part


def _value(node: tuple, item: dict, names: dict, values: dict) -> dict | None:
    kind = node[0]
    if kind == "path":
        return resolve(item, node, names)
    if kind == "val":
        try:
            return values[node[1]]
        except KeyError:
            raise ValidationError(f"Invalid expression: An expression attribute value used in expression is not "
                                  f"defined; attribute value: {node[1]}") from None
    if kind == "size":
        return _size(resolve(item, node[1], names))
    raise ValidationError(f"Invalid expression: unexpected operand {kind}")


def _static_check(node: tuple, values: dict, op: str) -> None:
    """An ordering operator or function given a literal of a type it cannot take: refused, as DynamoDB does."""
    if node[0] == "val":
        v = values.get(node[1])
        if v is not None and _ordered(v) is None:
            (t, _), = v.items()
            raise ValidationError(f"Invalid ConditionExpression: Incorrect operand type for operator or function; "
                                  f"operator or function: {op}, operand type: {t}")


def evaluate(tree: tuple, item: dict, names: dict, values: dict) -> bool:
    """A condition on an item ({} when there is none)."""
    kind = tree[0]
    if kind == "group":
        return evaluate(tree[1], item, names, values)
    if kind == "and":
        left = evaluate(tree[1], item, names, values)
        right = evaluate(tree[2], item, names, values)   # both: a bad operand on the right is refused either way
        return left and right
    if kind == "or":
        left = evaluate(tree[1], item, names, values)
        right = evaluate(tree[2], item, names, values)
        return left or right
    if kind == "not":
        return not evaluate(tree[1], item, names, values)
    if kind == "cmp":
        if tree[1] not in ("=", "<>"):
            _static_check(tree[2], values, tree[1])
            _static_check(tree[3], values, tree[1])
        return _compare(tree[1], _value(tree[2], item, names, values), _value(tree[3], item, names, values))
    if kind == "between":
        for node in tree[1:]:
            _static_check(node, values, "BETWEEN")
        x, lo, hi = (_value(n, item, names, values) for n in tree[1:])
        if lo is not None and hi is not None and tree[2][0] == "val" and tree[3][0] == "val":
            olo, ohi = _ordered(lo), _ordered(hi)
            if olo[0] == ohi[0] and olo[1] > ohi[1]:
                raise ValidationError("Invalid ConditionExpression: The BETWEEN operator requires upper bound to be "
                                      "greater than or equal to lower bound")
        return _compare(">=", x, lo) and _compare("<=", x, hi)
    if kind == "in":
        x = _value(tree[1], item, names, values)
        return any(equal(x, _value(o, item, names, values)) for o in tree[2])
    if kind == "fn":
        return _function(tree[1], tree[2], item, names, values)
    raise ValidationError(f"Invalid ConditionExpression: unexpected {kind}")


def _function(fn: str, args: tuple, item: dict, names: dict, values: dict) -> bool:
    if fn == "attribute_exists":
        return resolve(item, args[0], names) is not None
    if fn == "attribute_not_exists":
        return resolve(item, args[0], names) is None
    a, b = (_value(x, item, names, values) for x in args)
    if fn == "attribute_type":
        if args[1][0] != "val" or b is None or "S" not in b or b["S"] not in _TYPES:
            raise ValidationError(f"Invalid ConditionExpression: Invalid attribute type name found; type: "
                                  f"{(b or {}).get('S')}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}")
        return a is not None and next(iter(a)) == b["S"]
    if fn == "begins_with":
        if args[1][0] == "val" and b is not None and next(iter(b)) not in ("S", "B"):
            raise ValidationError(f"Invalid ConditionExpression: Incorrect operand type for operator or function; "
                                  f"operator or function: begins_with, operand type: {next(iter(b))}")
        if a is None or b is None:
            return False
        if "S" in a and "S" in b:
            return a["S"].startswith(b["S"])
        if "B" in a and "B" in b:
            return bytes(a["B"]).startswith(bytes(b["B"]))
        return False
    if fn == "contains":
        if a is None or b is None:
            return False
        (ta, xa), = a.items()
        (tb, xb), = b.items()
        if ta == "S" and tb == "S":
            return xb in xa
        if ta == "B" and tb == "B":
            return bytes(xb) in bytes(xa)
        if ta == "SS" and tb == "S" or ta == "BS" and tb == "B":
            return xb in xa
        if ta == "NS" and tb == "N":
            return number(xb) in {number(n) for n in xa}
        if ta == "L":
            return any(equal(e, b) for e in xa)
        return False
    raise ValidationError(f"Invalid ConditionExpression: Invalid function name; function: {fn}")


# -- key conditions
def _ungrouped(tree: tuple) -> tuple:
    while tree[0] == "group":
        tree = tree[1]
    return tree


def key_condition(parsed: Parsed, hash_name: str, range_name: str | None, names: dict, values: dict) -> tuple:
    """(hash value, range condition or None) of a Query's KeyConditionExpression: `hash = :v` and at most one of
    =, <, <=, >, >=, BETWEEN, begins_with on the sort key. The range condition: (op, value[, value2])."""
    tree = _ungrouped(parsed.tree)
    terms = [_ungrouped(tree[1]), _ungrouped(tree[2])] if tree[0] == "and" else [tree]
    if len(terms) == 2 and terms[0][0] == "and" or any(t[0] in ("or", "not", "and", "in") for t in terms):
        raise ValidationError("Invalid operator used in KeyConditionExpression: "
                              + ("OR" if tree[0] == "or" else tree[0].upper()))
    hash_value, cond = None, None

    def key_of(node: tuple) -> str:
        if node[0] != "path" or len(node[1]) != 1:
            raise ValidationError("Invalid KeyConditionExpression: the key must be an attribute name")
        return _attr(node[1][0], names)

    def literal(node: tuple) -> dict:
        if node[0] != "val":
            raise ValidationError("Invalid KeyConditionExpression: a key is compared with a value placeholder")
        return _value(node, {}, names, values)

    for t in terms:
        if t[0] == "cmp":
            attr = key_of(t[2])
            if attr == hash_name and t[1] == "=" and hash_value is None:
                hash_value = literal(t[3])
                continue
            if attr == range_name and cond is None and t[1] != "<>":
                cond = (t[1], literal(t[3]))
                continue
        elif t[0] == "between" and key_of(t[1]) == range_name and cond is None:
            cond = ("between", literal(t[2]), literal(t[3]))
            olo, ohi = _ordered(cond[1]), _ordered(cond[2])
            if olo and ohi and olo[0] == ohi[0] and olo[1] > ohi[1]:
                raise ValidationError("Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to "
                                      "be greater than or equal to lower bound")
            continue
        elif t[0] == "fn" and t[1] == "begins_with" and key_of(t[2][0]) == range_name and cond is None:
            cond = ("begins_with", literal(t[2][1]))
            continue
        raise ValidationError("Query condition missed key schema element" if hash_value is None
                              else "Invalid KeyConditionExpression: an unsupported term on the key")
    if hash_value is None:
        raise ValidationError(f"Query condition missed key schema element: {hash_name}")
    return hash_value, cond


# -- projections
def project(item: dict, parsed: Parsed, names: dict) -> dict:
    out: dict = {}
    for path in parsed.tree:
        v = resolve(item, path, names)
        if v is None:
            continue
        parts = [p if isinstance(p, int) else _attr(p, names) for p in path[1]]
        _place(out, parts, v, item)
    return out


def _place(out: dict, parts: list, v: dict, item: dict) -> None:
    """A projected nested value under its path; list elements keep their order (DynamoDB packs them)."""
    if len(parts) == 1:
        out[parts[0]] = v
        return
    cur = out.setdefault(parts[0], {"M": {}} if isinstance(parts[1], str) else {"L": []})
    for k, part in enumerate(parts[1:], start=1):
        last = k == len(parts) - 1
        nxt = None if last else ({"M": {}} if isinstance(parts[k + 1], str) else {"L": []})
        if isinstance(part, int):
            cur["L"].append(v if last else nxt)
            cur = cur["L"][-1]
        else:
            if last:
                cur["M"][part] = v
            else:
                cur = cur["M"].setdefault(part, nxt)


# -- updates
def apply_update(parsed: Parsed, item: dict, names: dict, values: dict, key_names: tuple) -> tuple[dict, set[str]]:
    """The item after an UpdateExpression (a new dict; `item` unchanged) and the top-level attributes it touched.
    Every right-hand side is read from the item as it was, as DynamoDB does."""
    clauses = parsed.tree
    targets: list[list] = []
    for _clause, actions in clauses.items():
        for action in actions:
            parts = [p if isinstance(p, int) else _attr(p, names) for p in action[0][1]]
            if parts[0] in key_names:
                raise ValidationError(f"One or more parameter values were invalid: Cannot update attribute "
                                      f"{parts[0]}. This attribute is part of the key")
            targets.append(parts)
    for i, a in enumerate(targets):
        for b in targets[i + 1:]:
            n = min(len(a), len(b))
            if a[:n] == b[:n]:
                raise ValidationError(f"Invalid UpdateExpression: Two document paths overlap with each other; must "
                                      f"remove or rewrite one of these paths; path one: {a}, path two: {b}")
    import copy
    new = copy.deepcopy(item)
    sets = [(a[0], _set_value(a[1], item, names, values)) for a in clauses.get("SET", [])]
    for path, v in sets:
        _assign(new, path, v, names)
    removes = sorted((a[0] for a in clauses.get("REMOVE", [])),
                     key=lambda p: [x if isinstance(x, int) else -1 for x in p[1]], reverse=True)
    for path in removes:   # list elements from the last: each index names the element of the list as it was
        _remove(new, path, names)
    for path, val in clauses.get("ADD", []):
        v = _value(val, item, names, values)
        old = resolve(item, path, names)
        (t, x), = v.items()
        if t == "N":
            if old is not None and "N" not in old:
                raise ValidationError("An operand in the update expression has an incorrect data type")
            total = number(x) + (number(old["N"]) if old else Decimal(0))
            _assign(new, path, {"N": number_text(total)}, names)
        elif t in ("SS", "NS", "BS"):
            if old is not None and t not in old:
                raise ValidationError("An operand in the update expression has an incorrect data type")
            _assign(new, path, {t: _union(t, old[t] if old else [], x)}, names)
        else:
            raise ValidationError(f"Invalid UpdateExpression: Incorrect operand type for operator or function; "
                                  f"operator: ADD, operand type: {t}")
    for path, val in clauses.get("DELETE", []):
        v = _value(val, item, names, values)
        (t, x), = v.items()
        if t not in ("SS", "NS", "BS"):
            raise ValidationError(f"Invalid UpdateExpression: Incorrect operand type for operator or function; "
                                  f"operator: DELETE, operand type: {t}")
        old = resolve(item, path, names)
        if old is None:
            continue
        if t not in old:
            raise ValidationError("An operand in the update expression has an incorrect data type")
        left = _difference(t, old[t], x)
        if left:
            _assign(new, path, {t: left}, names)
        else:
            _remove(new, path, names)
    return new, {t[0] for t in targets}


def _union(t: str, a: list, b: list) -> list:
    if t == "NS":
        seen = {number(n) for n in a}
        return [*a, *(n for n in b if number(n) not in seen)]
    return [*a, *(e for e in b if e not in a)]


def _difference(t: str, a: list, b: list) -> list:
    if t == "NS":
        drop = {number(n) for n in b}
        return [n for n in a if number(n) not in drop]
    return [e for e in a if e not in b]


def _set_value(node: tuple, item: dict, names: dict, values: dict) -> dict:
    kind = node[0]
    if kind == "arith":
        a, b = _set_value(node[2], item, names, values), _set_value(node[3], item, names, values)
        if "N" not in a or "N" not in b:
            raise ValidationError("An operand in the update expression has an incorrect data type")
        x, y = number(a["N"]), number(b["N"])
        return {"N": number_text(x + y if node[1] == "+" else x - y)}
    if kind == "fn":
        fn, (a, b) = node[1], node[2]
        if fn == "if_not_exists":
            have = resolve(item, a, names)
            return have if have is not None else _set_value(b, item, names, values)
        first, second = _set_value(a, item, names, values), _set_value(b, item, names, values)
        if "L" not in first or "L" not in second:
            raise ValidationError("Invalid UpdateExpression: Incorrect operand type for operator or function; "
                                  "operator or function: list_append, operand type: " +
                                  next(iter(first if "L" not in first else second)))
        return {"L": [*first["L"], *second["L"]]}
    if kind == "size":
        raise ValidationError("Invalid UpdateExpression: The function is not allowed in an update expression; "
                              "function: size")
    v = _value(node, item, names, values)
    if v is None:
        raise ValidationError("The provided expression refers to an attribute that does not exist in the item")
    return v


def _parent(item: dict, path: tuple, names: dict, for_remove: bool = False):
    """The container (a dict of attributes or a list) holding the path's last element, and that element."""
    parts = path[1]
    last = parts[-1] if isinstance(parts[-1], int) else _attr(parts[-1], names)
    if len(parts) == 1:
        return item, last
    parent = resolve(item, ("path", parts[:-1]), names)
    if parent is None:
        if for_remove:
            return None, last
        raise ValidationError("The document path provided in the update expression is invalid for update")
    if isinstance(last, int):
        if "L" not in parent:
            if for_remove:
                return None, last
            raise ValidationError("The document path provided in the update expression is invalid for update")
        return parent["L"], last
    if "M" not in parent:
        if for_remove:
            return None, last
        raise ValidationError("The document path provided in the update expression is invalid for update")
    return parent["M"], last


def _assign(item: dict, path: tuple, v: dict, names: dict) -> None:
    container, last = _parent(item, path, names)
    if isinstance(container, list):
        if last < len(container):
            container[last] = v
        else:
            container.append(v)   # past the end: DynamoDB appends
    else:
        container[last] = v


def _remove(item: dict, path: tuple, names: dict) -> None:
    container, last = _parent(item, path, names)   # a nested path's parent must be there, as for SET
    if isinstance(container, list):
        if last < len(container):
            del container[last]
    else:
        container.pop(last, None)


def item_size(item: dict) -> int:
    """An item's size as DynamoDB counts it (names and values in bytes), for its 400 KB limit."""
    return sum(len(k.encode()) + _value_size(v) for k, v in item.items())


def _value_size(v: dict) -> int:
    (t, x), = v.items()
    if t == "S":
        return len(x.encode())
    if t == "N":
        return (len(x.strip("-").replace(".", "").lstrip("0")) + 1) // 2 + 1
    if t == "B":
        return len(x)
    if t in ("BOOL", "NULL"):
        return 1
    if t == "SS":
        return sum(len(e.encode()) for e in x)
    if t == "BS":
        return sum(len(e) for e in x)
    if t == "NS":
        return sum(_value_size({"N": e}) for e in x)
    if t == "L":
        return 3 + sum(1 + _value_size(e) for e in x)
    return 3 + sum(1 + len(k.encode()) + _value_size(e) for k, e in x.items())

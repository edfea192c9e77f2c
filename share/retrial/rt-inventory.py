#!/usr/bin/env python3
"""rt-inventory.py: the assertion inventory of Python test files for
retrial's guard (retrial(7), INVENTORY), read with the standard ast module.
It never imports or runs the code it reads.  Usage: rt-inventory.py
[--root DIR] FILE...  One JSON object on stdout, exit 0 (a file that does
not parse gets "error"); exit 2 on a usage error."""
import ast
import builtins
import json
import os
import re
import sys

MAX_BYTES = 2 * 1024 * 1024

# unittest/pytest names, by what they demand
RAISES = {"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp",
          "assertWarns", "assertWarnsRegex", "warns"}
SKIPS = {"skip", "skipTest", "xfail", "importorskip"}
FAILS = {"fail"}
EXITS = {"sys.exit", "os._exit", "exit", "quit", "os.abort"}
SKIP_MARKS = {"skip", "skipif", "xfail", "skipIf", "skipUnless",
              "expectedFailure"}
TOLERANCE = {"places": "places", "delta": "delta", "rel": "rel", "abs": "abs",
             "rtol": "rel", "atol": "abs", "rel_tol": "rel", "abs_tol": "abs"}
SWALLOWS = {"AssertionError", "Exception", "BaseException"}
# calls that are not the code under test ("uses" leaves them out)
NOT_UNDER_TEST = set(dir(builtins)) | {"super"}
EXPECTED_NAME = re.compile(r"^(self\.)?(want|wanted|expected|expect|exp\w*|"
                           r"golden)\b", re.I)


def norm(node):
    """Normalised source of node, one line."""
    try:
        s = ast.unparse(node)
    except AttributeError:      # Python < 3.9: the raw text, collapsed
        s = getattr(node, "_rt_src", "") or ""
    except RecursionError:
        raise
    return " ".join(s.split())


class Reader:
    def __init__(self, path, src):
        self.path = path
        self.src = src
        self.lines = src.decode("utf-8", "replace").splitlines()

    def source(self, node, first_line=False):
        """The check as written, whitespace collapsed (for quoting)."""
        a = node.lineno
        b = a if first_line else (getattr(node, "end_lineno", None) or a)
        text = " ".join(self.lines[a - 1:b])
        if first_line:
            text = text.strip()
            if len(text) > 200:
                text = text[:200]
        else:
            col = getattr(node, "col_offset", 0)
            end = getattr(node, "end_col_offset", None)
            if a == b and end is not None and a - 1 < len(self.lines):
                raw = self.lines[a - 1].encode("utf-8")
                text = raw[col:end].decode("utf-8", "replace")
            elif a - 1 < len(self.lines):
                first = self.lines[a - 1].encode("utf-8")[col:]
                text = first.decode("utf-8", "replace") + " " + " ".join(
                    self.lines[a:b])
        return " ".join(text.split())


def dotted(func):
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        inner = dotted(func.value)
        return inner + "." + func.attr if inner else func.attr
    if isinstance(func, ast.Call):
        return dotted(func.func)
    return ""


def last(name):
    return name.rsplit(".", 1)[-1]


def is_literal(n):
    if isinstance(n, ast.Constant):
        return True
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, (ast.USub, ast.UAdd)):
        return is_literal(n.operand)
    if isinstance(n, (ast.List, ast.Tuple, ast.Set)):
        return all(is_literal(e) for e in n.elts)
    if isinstance(n, ast.Dict):
        return all(k is not None and is_literal(k) and is_literal(v)
                   for k, v in zip(n.keys, n.values))
    return False


def expected_index(nodes, default=None):
    lits = [i for i, n in enumerate(nodes) if is_literal(n)]
    if len(lits) == 1 and len(nodes) > 1:
        return lits[0]
    for i, n in enumerate(nodes):
        if EXPECTED_NAME.match(norm(n)):
            return i
    return default if default is not None and default < len(nodes) else None


CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">",
       ast.GtE: ">=", ast.In: "in", ast.NotIn: "not in", ast.Is: "is",
       ast.IsNot: "is not"}


def approx_options(nodes, opts):
    """rel/abs of a pytest.approx(...) inside the operands."""
    for top in nodes:
        for n in ast.walk(top):
            if not isinstance(n, ast.Call) or last(dotted(n.func)) != "approx":
                continue
            if len(n.args) > 1:
                opts["rel"] = norm(n.args[1])
            if len(n.args) > 2:
                opts["abs"] = norm(n.args[2])
            for k in n.keywords:
                if k.arg in ("rel", "abs"):
                    opts[k.arg] = norm(k.value)


def falsy_constant(n):
    """A condition that is always false: False, 0, None, "", or an `and`
    with one of them."""
    if isinstance(n, ast.Constant):
        return not n.value and not isinstance(n.value, type(Ellipsis))
    if isinstance(n, ast.BoolOp) and isinstance(n.op, ast.And):
        return any(falsy_constant(v) for v in n.values)
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
        return truthy_constant(n.operand)
    return False


def truthy_constant(n):
    if isinstance(n, ast.Constant):
        return bool(n.value)
    if isinstance(n, ast.UnaryOp) and isinstance(n.op, ast.Not):
        return falsy_constant(n.operand)
    return False


def under_test(name):
    """Is a called name possibly the code under test (not a builtin, an
    assertion or the test framework)?"""
    base = last(name)
    return bool(name) and name not in NOT_UNDER_TEST and not (
        base.startswith("assert") or base.startswith("fail") or
        name.startswith(("pytest.", "unittest.")) or base in RAISES |
        SKIPS | {"approx"})


def calls_in(node):
    out = []
    for n in ast.walk(node):
        if isinstance(n, ast.Call):
            name = dotted(n.func)
            if under_test(name) and name not in out:
                out.append(name)
    return out


def names_in(node):
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def assigned(fnode):
    """name -> the calls of the values assigned to it in a function."""
    out = {}

    def bind(target, value):
        for t in ast.walk(target):
            if isinstance(t, ast.Name):
                out.setdefault(t.id, [])
                for c in calls_in(value):
                    if c not in out[t.id]:
                        out[t.id].append(c)
    for n in ast.walk(fnode):
        if isinstance(n, ast.Assign):
            for t in n.targets:
                bind(t, n.value)
        elif isinstance(n, (ast.AnnAssign, ast.AugAssign)) and n.value:
            bind(n.target, n.value)
        elif isinstance(n, (ast.For, ast.AsyncFor)):
            bind(n.target, n.iter)
        elif isinstance(n, ast.withitem) and n.optional_vars is not None:
            bind(n.optional_vars, n.context_expr)
        elif type(n).__name__ == "NamedExpr":
            bind(n.target, n.value)
    return out


def catches_all(handler):
    t = handler.type
    if t is None:
        return True
    names = t.elts if isinstance(t, ast.Tuple) else [t]
    return any(last(dotted(x)) in SWALLOWS for x in names)


def reraises(body):
    for stmt in body:
        for n in ast.walk(stmt):
            if isinstance(n, ast.Raise):
                return True
            if isinstance(n, ast.Call) and last(dotted(n.func)) in \
                    FAILS | {"exit", "_exit", "abort"}:
                return True
    return False


class Fn:
    def __init__(self, name, node, test):
        self.name, self.node, self.test = name, node, test
        self.checks, self.calls = [], []

    def json(self):
        return {"name": self.name, "line": self.node.lineno,
                "end": getattr(self.node, "end_lineno", None) or self.node.lineno,
                "test": self.test, "calls": self.calls, "checks": self.checks}


class Inventory:
    def __init__(self, reader):
        self.r = reader
        self.fns = []
        self.local = []     # the local helpers (nested defs) being read
        self.dead = None    # the `if False:` the statements are under

    # ---- one check ----
    def add(self, fn, kind, node, callee="", op="", operands=(), expected=None,
            options=None, guard=None, text=None, source=None, first_line=False):
        ops = [norm(o) for o in operands]
        c = {"kind": kind, "line": node.lineno,
             "end": node.lineno if first_line else
             (getattr(node, "end_lineno", None) or node.lineno),
             "callee": callee, "op": op, "operands": ops,
             "expected": expected, "options": options or {},
             "guarded": guard[0] if guard else None,
             "text": text if text is not None else norm(node),
             "source": source if source is not None else
             self.r.source(node, first_line)}
        if guard and guard[1]:
            c["guarded_by"] = guard[1]
        if self.dead:
            c["dead"] = self.dead
        c["_uses"] = list(operands)
        if self.local:
            c["local"] = ".".join(self.local)   # in a helper defined in the test
        fn.checks.append(c)

    def assert_stmt(self, fn, s, guard):
        t = s.test
        opts = {}
        if s.msg is not None:
            opts["msg"] = norm(s.msg)
        if isinstance(t, ast.Compare):
            nodes = [t.left, t.comparators[0]]
            op = CMP.get(type(t.ops[0]), "")
        elif isinstance(t, ast.UnaryOp) and isinstance(t.op, ast.Not):
            nodes, op = [t.operand], "not"
        else:
            nodes, op = [t], "truthy"
        approx_options(nodes, opts)
        self.add(fn, "assert", s, "", op, nodes, expected_index(nodes), opts,
                 guard)

    def call(self, fn, stmt, call, guard, nested):
        name = dotted(call.func)
        base = last(name)
        if name in EXITS or (base in ("exit", "_exit") and name.startswith(
                ("sys.", "os."))):
            if not nested:
                self.add(fn, "return", stmt, name, operands=call.args[:1],
                         guard=guard)
            return
        if base in SKIPS and (name.startswith(("pytest.", "self.")) or
                              name == base):
            self.add(fn, "skip", stmt, name, guard=guard)
            return
        if base in FAILS and (name.startswith(("pytest.", "self.")) or
                              name == base):
            self.add(fn, "fail", stmt, name, operands=call.args[:1],
                     guard=guard)
            return
        if base in RAISES and (name.startswith(("pytest.", "self.")) or
                               name == base):
            self.add(fn, "raises", stmt, name, operands=call.args[:1],
                     guard=guard)
            return
        if not (base.startswith("assert") or base.startswith("assert_")):
            return
        args = list(call.args)
        opts = {}
        pos_places = base in ("assertAlmostEqual", "assertNotAlmostEqual",
                              "assertAlmostEquals")
        if pos_places and len(args) > 2:
            opts["places"] = norm(args[2])
            if len(args) > 3:
                opts["msg"] = norm(args[3])
            args = args[:2]
        for k in call.keywords:
            if k.arg in TOLERANCE:
                opts[TOLERANCE[k.arg]] = norm(k.value)
            elif k.arg == "msg":
                opts["msg"] = norm(k.value)
        approx_options(args, opts)
        default = 1 if "Equal" in base or base in ("assertIs",) else None
        self.add(fn, "call", stmt, base if name.startswith("self.") else name,
                 "", args, expected_index(args, default), opts, guard)

    # ---- statements ----
    def stmts(self, fn, body, guard, nested):
        for s in body:
            self.stmt(fn, s, guard, nested)

    def stmt(self, fn, s, guard, nested):
        if isinstance(s, ast.Assert):
            self.assert_stmt(fn, s, guard)
        elif isinstance(s, ast.Expr):
            v = s.value
            if isinstance(v, ast.Await):
                v = v.value
            if isinstance(v, ast.Call):
                self.call(fn, s, v, guard, nested)
        elif isinstance(s, ast.Return):
            if not nested:
                self.add(fn, "return", s, "return", guard=guard)
        elif isinstance(s, ast.Raise):
            name = last(dotted(s.exc)) if s.exc is not None else ""
            if name in ("SkipTest", "Skipped"):
                self.add(fn, "skip", s, name, guard=guard)
            elif name in ("AssertionError", "failureException"):
                self.add(fn, "fail", s, name, guard=guard)
            elif name in ("SystemExit",) and not nested:
                self.add(fn, "return", s, name, guard=guard)
        elif isinstance(s, (ast.With, ast.AsyncWith)):
            inner = guard
            for item in s.items:
                e = item.context_expr
                if not isinstance(e, ast.Call):
                    continue
                name = dotted(e.func)
                base = last(name)
                if base in RAISES:
                    self.add(fn, "raises", s, name, operands=e.args[:1],
                             guard=guard, text="with " + norm(item) + ":",
                             first_line=True)
                elif base == "suppress" and any(
                        last(dotted(a)) in SWALLOWS for a in e.args):
                    inner = ("suppress", {"line": s.lineno,
                                          "text": self.r.source(s, True)})
            self.stmts(fn, s.body, inner, nested)
        elif isinstance(s, ast.Try) or type(s).__name__ == "TryStar":
            inner = guard
            for h in s.handlers:
                if catches_all(h) and not reraises(h.body):
                    inner = ("try", {"line": h.lineno,
                                     "text": self.r.source(h, True)})
                    break
            self.stmts(fn, s.body, inner, nested)
            for h in s.handlers:
                self.stmts(fn, h.body, guard, nested)
            self.stmts(fn, s.orelse, guard, nested)
            self.stmts(fn, s.finalbody, guard, nested)
        elif isinstance(s, (ast.If, ast.While)) and not self.dead and (
                falsy_constant(s.test) or
                isinstance(s, ast.If) and truthy_constant(s.test)):
            # a branch that never runs: its checks are dead
            dead = {"line": s.lineno, "text": self.r.source(s, True)}
            live, never = (s.orelse, s.body) if falsy_constant(s.test) else \
                (s.body, s.orelse)
            self.stmts(fn, live, guard, nested)
            self.dead = dead
            self.stmts(fn, never, guard, nested)
            self.dead = None
        elif isinstance(s, (ast.If, ast.For, ast.AsyncFor, ast.While)):
            self.stmts(fn, s.body, guard, nested)
            self.stmts(fn, s.orelse, guard, nested)
        elif isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # a local helper's checks are the test's; its returns are not
            self.local.append(s.name)
            self.stmts(fn, s.body, guard, True)
            self.local.pop()
        elif type(s).__name__ == "Match":
            for case in s.cases:
                self.stmts(fn, case.body, guard, nested)

    def skip_marks(self, fn, decorators):
        for d in decorators:
            name = dotted(d)
            if last(name) in SKIP_MARKS and (name.startswith(
                    ("pytest.mark.", "unittest.")) or name == last(name)):
                self.add(fn, "skip", d, name, text="@" + norm(d),
                         source="@" + self.r.source(d))

    def calls_of(self, fn, node):
        seen = []
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                name = dotted(n.func)
                if name and name not in seen:
                    seen.append(name)
        fn.calls = seen

    def function(self, node, prefix, in_test_class, class_decorators):
        name = prefix + node.name
        test = node.name.startswith("test") and (prefix == "" or in_test_class)
        fn = Fn(name, node, test)
        self.skip_marks(fn, list(class_decorators) + node.decorator_list)
        self.stmts(fn, node.body, None, False)
        self.calls_of(fn, node)
        self.uses(fn, node)
        self.fns.append(fn)

    def uses(self, fn, node):
        """Each check's "uses": the calls whose values it compares, directly
        or through a name assigned in the function."""
        binds = assigned(node)
        for c in fn.checks:
            ops = c.pop("_uses", [])
            u = []
            for o in ops:
                for name in calls_in(o) + [x for n in sorted(names_in(o))
                                           for x in binds.get(n, [])]:
                    if name not in u:
                        u.append(name)
            c["uses"] = u

    def klass(self, node, prefix, known):
        bases = [norm(b) for b in node.bases]
        test = node.name.startswith("Test") or any(
            b.endswith("TestCase") or last(b) in known for b in bases)
        if test:
            known.add(node.name)
        decos = [d for d in node.decorator_list
                 if last(dotted(d)) in SKIP_MARKS]
        for s in node.body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(s, prefix + node.name + ".", test,
                              decos if s.name.startswith("test") else [])
            elif isinstance(s, ast.ClassDef):
                self.klass(s, prefix + node.name + ".", known)

    def module(self, tree):
        known = set()
        top = Fn("<module>", tree, False)
        for s in tree.body:
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.function(s, "", False, [])
            elif isinstance(s, ast.ClassDef):
                self.klass(s, "", known)
            elif isinstance(s, ast.Assign) and any(
                    isinstance(t, ast.Name) and t.id == "pytestmark"
                    for t in s.targets):
                marks = s.value.elts if isinstance(
                    s.value, (ast.List, ast.Tuple)) else [s.value]
                self.skip_marks(top, marks)
            elif isinstance(s, (ast.Assert, ast.Expr, ast.With, ast.Try)):
                self.stmt(top, s, None, True)
        self.uses(top, tree)
        if any(c["kind"] not in ("return",) for c in top.checks):
            top.test = True
            top.node = type("M", (), {"lineno": 1, "end_lineno": len(
                self.r.lines) or 1})()
            self.fns.insert(0, top)


def read_file(root, path):
    out = {"path": path, "error": None, "functions": []}
    full = path if os.path.isabs(path) else os.path.join(root, path)
    try:
        with open(full, "rb") as f:
            src = f.read(MAX_BYTES + 1)
    except OSError as e:
        out["error"] = {"line": 0, "col": 0, "message": "cannot read: %s" %
                        (e.strerror or e), "limit": True}
        return out
    if len(src) > MAX_BYTES:
        out["error"] = {"line": 0, "col": 0, "limit": True,
                        "message": "over 2 MiB: not read"}
        return out
    try:
        tree = ast.parse(src, filename=path)
    except SyntaxError as e:
        out["error"] = {"line": e.lineno or 0, "col": e.offset or 0,
                        "message": e.msg or "invalid syntax"}
        if "too many nested" in (e.msg or "") or "too complex" in (e.msg or ""):
            out["error"]["limit"] = True
        return out
    except (ValueError, UnicodeDecodeError) as e:
        out["error"] = {"line": 0, "col": 0, "message": str(e)}
        return out
    except (RecursionError, MemoryError):
        out["error"] = {"line": 0, "col": 0, "limit": True,
                        "message": "nested deeper than the parser allows"}
        return out
    inv = Inventory(Reader(path, src))
    try:
        inv.module(tree)
    except (RecursionError, MemoryError):
        out["error"] = {"line": 0, "col": 0, "limit": True,
                        "message": "nested deeper than the reader allows"}
        return out
    out["functions"] = [f.json() for f in inv.fns]
    return out


def main(argv):
    args = argv[1:]
    root = "."
    if args[:1] == ["--root"]:
        if len(args) < 2:
            sys.stderr.write("rt-inventory.py: --root: missing value\n")
            return 2
        root, args = args[1], args[2:]
    if args[:1] == ["--"]:
        args = args[1:]
    v = sys.version_info
    out = {"version": 1, "lang": "python",
           "parser": "python ast %d.%d.%d" % (v[0], v[1], v[2]),
           "files": [read_file(root, p) for p in args]}
    sys.stdout.write(json.dumps(out, separators=(",", ":")) + "\n")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.setrecursionlimit(4000)
    sys.exit(main(sys.argv))

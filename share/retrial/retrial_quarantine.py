"""retrial_quarantine: a pytest plugin that runs quarantined tests without
letting them fail the session (rt-quarantine(1)).

Load it with ``-p retrial_quarantine`` (PYTHONPATH=share/retrial). It reads
the quarantine list, $RETRIAL_QUARANTINE or .retrial/quarantine under the
rootdir, and marks each listed test ``xfail(strict=False)`` with the
entry's reason: the test still runs, its outcome is in the JUnit report
(a failure as a skip of type pytest.xfail, a pass as a pass), and the
session does not fail on it. ``rt-quarantine gate`` reads it back.
"""
import os

import pytest

PREFIX = "retrial quarantine: "


def parse(text, path):
    """The list's entries as {ID: reason}, as lib/rt_quarantine reads it:
    the ID up to the TAB (else the whole line, and an older line's first
    word), then NAME=VALUE fields; '#' and blank lines are skipped."""
    entries = {}
    for no, line in enumerate(text.split("\n"), 1):
        line = line.rstrip("\r")
        s = line.lstrip(" \t")
        if not s or s.startswith("#"):
            continue
        ident, tab, rest = s.partition("\t")
        ident = ident.rstrip(" ")
        fields = {}
        for f in rest.split("\t") if tab else []:
            f = f.strip(" ")
            if not f:
                continue
            if f.startswith("#"):
                break
            name, eq, value = f.partition("=")
            if not eq or not name:
                raise pytest.UsageError(
                    "%s:%d: field %r is not NAME=VALUE" % (path, no, f))
            fields[name] = value
        reason = fields.get("reason") or "on the quarantine list"
        entries[ident] = reason
        if not tab and " " in ident:
            entries.setdefault(ident.split(" ", 1)[0], reason)
    return entries


def _load(config):
    path = os.environ.get("RETRIAL_QUARANTINE") or os.path.join(
        str(config.rootpath), ".retrial", "quarantine")
    try:
        with open(path, encoding="utf-8") as f:
            return parse(f.read(), path)
    except FileNotFoundError:
        if os.environ.get("RETRIAL_QUARANTINE"):
            raise pytest.UsageError("%s: no such file" % path)
        return {}


def pytest_configure(config):
    config._retrial_quarantine = _load(config)


def pytest_collection_modifyitems(config, items):
    entries = getattr(config, "_retrial_quarantine", {})
    if not entries:
        return
    for item in items:
        reason = entries.get(item.nodeid)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(strict=False,
                                              reason=PREFIX + reason))


def pytest_report_header(config):
    n = len(getattr(config, "_retrial_quarantine", {}))
    return "retrial quarantine: %d test%s listed" % (n, "" if n == 1 else "s")

"""retrial_quarantine: a pytest plugin that runs quarantined tests without
letting them fail the session, and says how they really ended
(rt-quarantine(1)).

Load it with ``-p retrial_quarantine`` (PYTHONPATH=share/retrial). It reads
the quarantine list, $RETRIAL_QUARANTINE, else the first
.retrial/quarantine in pytest's rootdir or a directory above it, up to the
repository's top (git rev-parse --show-toplevel). A listed ID is the test's
node ID from the directory that holds .retrial (for $RETRIAL_QUARANTINE,
the repository's top): ``tests/test_x.py::t`` run under rootdir ``sub/``
is ``sub/tests/test_x.py::t`` on the list. No list is one warning line.

Each listed test is marked ``xfail(strict=False)`` with the entry's reason:
it still runs, the session does not fail on it, and its JUnit testcase
carries two properties, ``retrial_quarantined`` (the real outcome,
``failed`` or ``passed``) and ``retrial_quarantine_id`` (its ID on the
list), so rt-junit, rt-collect --case and rt-quarantine gate read a
hidden failure as the failure it is.
"""
import os
import subprocess
import sys

import pytest

PREFIX = "retrial quarantine: "
LIST = os.path.join(".retrial", "quarantine")
_QUARANTINED = pytest.StashKey()  # the ID a listed item has on the list


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


def _toplevel(rootdir):
    """The repository's top holding rootdir, or None (no git, no repository)."""
    try:
        r = subprocess.run(["git", "-C", rootdir, "rev-parse", "--show-toplevel"],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           universal_newlines=True, check=False)
    except OSError:
        return None
    top = r.stdout.strip()
    return os.path.realpath(top) if r.returncode == 0 and top else None


def _find(rootdir):
    """(path of the list, the directory its IDs start from), or (None,
    where it was looked for)."""
    top = _toplevel(rootdir)
    env = os.environ.get("RETRIAL_QUARANTINE")
    if env:
        return env, top or rootdir
    d = rootdir
    while True:
        path = os.path.join(d, LIST)
        if os.path.isfile(path):
            return path, d
        up = os.path.dirname(d)
        if top is None or d == top or up == d:
            break
        d = up
    where = LIST + " in " + rootdir
    if top and top != rootdir:
        where += " or a directory above it up to " + top
    return None, where


def _load(config):
    rootdir = os.path.realpath(str(config.rootpath))
    path, base = _find(rootdir)
    if path is None:
        return {}, "", "no quarantine list (%s, or $RETRIAL_QUARANTINE): " \
            "nothing is quarantined" % base
    try:
        with open(path, encoding="utf-8") as f:
            entries = parse(f.read(), path)
    except FileNotFoundError:
        raise pytest.UsageError("%s: no such file" % path)
    rel = os.path.relpath(rootdir, base)
    if rel == "." or rel.startswith(".." + os.sep) or rel == "..":
        rel = ""
    return entries, rel.replace(os.sep, "/"), None


def pytest_configure(config):
    entries, prefix, warning = _load(config)
    config._retrial_quarantine = entries
    config._retrial_prefix = prefix
    config._retrial_warning = warning


def _list_id(config, nodeid):
    prefix = getattr(config, "_retrial_prefix", "")
    return prefix + "/" + nodeid if prefix else nodeid


def pytest_collection_modifyitems(config, items):
    entries = getattr(config, "_retrial_quarantine", {})
    if not entries:
        return
    for item in items:
        ident = _list_id(config, item.nodeid)
        reason = entries.get(ident)
        if reason is not None:
            item.add_marker(pytest.mark.xfail(strict=False,
                                              reason=PREFIX + reason))
            item.stash[_QUARANTINED] = ident


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """The real outcome of a quarantined test, before xfail hides it: a
    failure in its setup or call is "failed", a clean call "passed". JUnit
    writes the properties of the teardown's report, made from the item's
    (so a failure in teardown itself is not recorded)."""
    yield
    ident = item.stash.get(_QUARANTINED, None)
    if ident is None:
        return
    props = item.user_properties
    seen = [v for k, v in props if k == "retrial_quarantined"]
    failed = call.excinfo is not None and \
        not call.excinfo.errisinstance(pytest.skip.Exception)
    if failed and "failed" not in seen:
        props[:] = [(k, v) for k, v in props if k != "retrial_quarantined"]
        props.append(("retrial_quarantined", "failed"))
    elif call.when == "call" and not seen:
        props.append(("retrial_quarantined", "passed"))
    if not any(k == "retrial_quarantine_id" for k, _ in props):
        props.append(("retrial_quarantine_id", ident))


def pytest_report_header(config):
    n = len(getattr(config, "_retrial_quarantine", {}))
    return "retrial quarantine: %d test%s listed" % (n, "" if n == 1 else "s")


def pytest_sessionstart(session):
    warning = getattr(session.config, "_retrial_warning", None)
    if not warning:
        return
    tr = session.config.pluginmanager.get_plugin("terminalreporter")
    if tr is not None:
        tr.write_line(PREFIX + "warning: " + warning)
    else:
        sys.stderr.write(PREFIX + "warning: " + warning + "\n")

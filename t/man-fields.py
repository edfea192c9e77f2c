#!/usr/bin/env python3
"""t/man-fields.py: the record fields retrial(7), RECORDS, documents, for
t/06-records.bats.

  man-fields.py MAN7 list              every "KIND WORD" the section names
  man-fields.py MAN7 schema < FIELDS   each "KIND FIELD" (records_test
                                       fields) the page does not document
  man-fields.py MAN7 emitted FILE...   each record field the files hold
                                       that the page does not document

A field is documented when its name is a word of its record type's entry
(a nested one, lanes[].id, when it is a word of the entry or of the record
type it holds: baseline a measure, lanes a lane, winner a hypothesis).
Exit 0 when every field is documented, 1 otherwise (each printed)."""
import json
import re
import sys

NESTED = {"baseline": "measure", "lanes": "lane", "winner": "hypothesis",
          "confirmations": "verdict", "control": "measure",
          "perturbed": "measure"}
INHERIT = {"attempt": "trial"}


def entries(path):
    """{kind: set of words} from the RECORDS section's .It entries."""
    text, on = [], False
    for line in open(path, encoding="utf-8"):
        if line.startswith(".Sh RECORDS"):
            on = True
            continue
        if on and (line.startswith(".Sh ") or line.startswith(".Ss ")):
            break
        if on:
            text.append(line.rstrip("\n"))
    out, head, body = {}, None, []

    def flush():
        if head is None:
            return
        words = " ".join(body)
        kinds = head
        parts = {}
        if len(kinds) > 1:
            # "lane: ... verdict: ...": each kind its own part when marked
            marks = [(m.start(), k) for k in kinds
                     for m in [re.search(r"(^|[\s.])" + re.escape(k) + r":", words)] if m]
            marks.sort()
            if marks:
                first = words[:marks[0][0]]
                for i, (pos, k) in enumerate(marks):
                    end = marks[i + 1][0] if i + 1 < len(marks) else len(words)
                    parts[k] = words[pos:end]
                for k in kinds:
                    if k not in parts:
                        parts[k] = first
            else:
                parts = {k: words for k in kinds}
        else:
            parts = {kinds[0]: words}
        for k, t in parts.items():
            out.setdefault(k, set()).update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", t))

    for line in text:
        if line.startswith(".It "):
            flush()
            body = []
            it = line[4:]
            if re.match(r"Ic trial No of a test case", it):
                head = ["case trial"]
            else:
                head = re.findall(r"Ic (\S+)", it)
            continue
        if line.startswith(".Bl") or line.startswith(".El"):
            continue
        if line.startswith("."):
            # a macro line: its words, less the macro names
            line = re.sub(r"(^\.| )(Pq|Xr|Fl|Cm|Nm|Ql|Dq|No|Ic|Ar|Op|Sq|Em)\b", " ", line)
        body.append(line)
    flush()
    # "and the trial fields for attempts that ran"
    for k, base in INHERIT.items():
        out.setdefault(k, set()).update(out.get(base, set()))
    return out


def documented(doc, kind, path):
    """Is the field path (a.b, lanes[].id) of kind documented?"""
    parts = [p.replace("[]", "") for p in path.split(".")]
    words = doc.get(kind, set())
    if parts[0] not in words:
        return False
    for parent, leaf in zip(parts, parts[1:]):
        if leaf not in words and leaf not in doc.get(NESTED.get(parent, ""), set()):
            return False
    return True


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: man-fields.py MAN7 list|schema|emitted [FILE ...]")
    doc = entries(sys.argv[1])
    bad = []
    if sys.argv[2] == "list":
        for k in sorted(doc):
            for w in sorted(doc[k]):
                print(k, w)
        return 0
    if sys.argv[2] == "schema":
        for line in sys.stdin:
            kind, _, field = line.rstrip("\n").rpartition(" ")
            if not documented(doc, kind, field):
                bad.append(f"{kind}: schema field {field} is not in retrial(7)")
    elif sys.argv[2] == "emitted":
        for f in sys.argv[3:]:
            for n, line in enumerate(open(f, encoding="utf-8"), 1):
                rec = json.loads(line)
                if not isinstance(rec, dict) or "type" not in rec:
                    continue
                kind = rec["type"]
                if kind == "trial" and rec.get("case") is not None:
                    kind = "case trial"
                for key, val in rec.items():
                    if key == "type":
                        continue
                    paths = [key]
                    subs = val if isinstance(val, list) else [val]
                    sep = "[]." if isinstance(val, list) else "."
                    if key in NESTED:
                        for s in subs:
                            if isinstance(s, dict):
                                paths += [key + sep + k for k in s]
                    for p in paths:
                        if not documented(doc, kind, p):
                            bad.append(f"{f}:{n}: {kind} record: field {p} is not in retrial(7)")
    else:
        sys.exit("usage: man-fields.py MAN7 list|schema|emitted [FILE ...]")
    for b in sorted(set(bad)):
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# t/doc-numbers.py: every example count in the man pages and the README,
# "0/40 failed (≤7.3% at 95% confidence" or "12/40 failed (30.0%, 95%
# Wilson CI 18.0%–45.5%)", checked against what lib/rt_say prints for those
# counts (t/say_test count K N C VERB). make lint runs it; exit 1 naming
# each FILE:LINE whose numbers differ, 2 on a usage error.
# usage: doc-numbers.py SAY_TEST FILE...
import re
import subprocess
import sys

# mdoc's escapes as the reader sees them
ESC = [(r"\(<=", "≤"), (r"\[u2264]", "≤"), (r"\(>=", "≥"), (r"\[u2265]", "≥"),
       (r"\(en", "–"), (r"\[u2013]", "–"), (r"\&", ""), (r"\e", "\\")]
# a bound at a confidence, or a Wilson interval; anytime intervals come
# from a stopping rule, not from the counts, and are not checked
BOUND = re.compile(r"(\d+)/(\d+) (failed|won|passed) \(([≤≥])([\d.]+)% at ([\d.]+)% confidence")
WILSON = re.compile(r"(\d+)/(\d+) (failed|won|passed) \(([\d.]+)%, ([\d.]+)% Wilson CI "
                    r"([\d.]+)%–([\d.]+)%\)")


def say(tool, k, n, conf, verb):
    c = "%g" % (float(conf) / 100)
    return subprocess.run([tool, "count", k, n, c, verb], check=True,
                          capture_output=True, text=True).stdout.strip()


def main():
    if len(sys.argv) < 3:
        print("usage: doc-numbers.py SAY_TEST FILE...", file=sys.stderr)
        return 2
    tool, bad, seen = sys.argv[1], 0, 0
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            for no, line in enumerate(f, 1):
                for a, b in ESC:
                    line = line.replace(a, b)
                for m in BOUND.finditer(line):
                    seen += 1
                    k, n, verb, _, _, conf = m.groups()
                    # an anytime bound, on this line or the next, is not checked
                    if re.match(r",(\s*$| anytime)", line[m.end():]):
                        seen -= 1
                        continue
                    want = say(tool, k, n, conf, verb)
                    if not want.startswith(m.group(0)):
                        print("%s:%d: %s…: rt_say prints %s" % (path, no, m.group(0), want))
                        bad += 1
                for m in WILSON.finditer(line):
                    seen += 1
                    k, n, verb, _, conf = m.groups()[:5]
                    want = say(tool, k, n, conf, verb)
                    if want != m.group(0):
                        print("%s:%d: %s: rt_say prints %s" % (path, no, m.group(0), want))
                        bad += 1
    print("doc-numbers: %d example counts checked, %d wrong" % (seen, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""t/fake-llm.py: a loopback server speaking the chat-completions protocol
(POST /v1/chat/completions) for the rt-diagnose tests. Nothing leaves the host.

  fake-llm.py --log FILE     serve on 127.0.0.1 on a free port, print the
                             port, and log every connection and request
                             (all headers and the body, nothing left out)
                             to FILE as JSON lines
  fake-llm.py --fixture DIR  write the small flaky project the answers patch

The model named in the request picks the behaviour: the part of its name
before the first "-" is the mode (so "good-a" and "good-b" are two models
that both answer well). Modes:

  good        a JSON answer with a unified diff (the real fix)
  decoy       a JSON answer with a diff that only lengthens the wait
  prose       the answer wrapped in prose and a ```json fence
  wholefile   {"file", "content"}: the whole replacement file
  patchwhole  "patch" holds the whole new file instead of a diff
  miscount    a diff with wrong hunk counts and no a/ b/ prefixes
  rawdiff     only a fenced diff, no JSON
  nopatch     a cause and an explanation, no patch
  truncated   finish_reason "length" and the JSON cut off
  flaky429    429 with "Retry-After: 1" on the first request, then good;
              a request sooner than the Retry-After gets 429 again and an
              "early" event in the log
  slow        answers good after 0.5 s, then logs a "reply" event
  namedwhole  "file" names the path and "patch" holds the whole new file
  wholeescape {"file", "content"} with a file outside the project
  err500      500 on every request
  nojsonmode  400 while response_format is asked for, then good
  apierror    401 with an error message
  hang        sleeps 30 s before answering
  big         an answer of 2 MB
  escape      a diff that writes ../../etc/passwd
  absolute    a diff that writes /etc/passwd
  babble      prose with no JSON and no diff
  echo        an explanation that repeats the Authorization header
"""
import difflib
import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

FIXTURE_NAME = "test_flaky.sh"
FIXTURE = """#!/bin/sh
# A fixture for the rt-diagnose tests: a background writer and a fixed wait.
out=${TMPDIR:-/tmp}/fixture.$$
( sleep 0.01; echo ready > "$out" ) &
sleep 0.02
if [ "$(cat "$out" 2>/dev/null)" != ready ]; then
	echo "fixture: NOTREADY" >&2
	exit 1
fi
wait
rm -f "$out"
"""
FIXED = FIXTURE.replace("sleep 0.02\n", "wait\n")
DECOY = FIXTURE.replace("sleep 0.02\n", "sleep 0.03\n")


def unified(old, new, a="a/" + FIXTURE_NAME, b="b/" + FIXTURE_NAME):
    return "".join(difflib.unified_diff(old.splitlines(True),
                                        new.splitlines(True), a, b))


GOOD = {"cause_class": "race_condition",
        "explanation": "The test reads the file after a fixed 20 ms sleep "
                       "while the writer may take longer; wait for it.",
        "patch": unified(FIXTURE, FIXED)}
DECOY_ANSWER = {"cause_class": "timing",
                "explanation": "20 ms is too short under load; wait 30 ms.",
                "patch": unified(FIXTURE, DECOY)}
MISCOUNT = ("--- test_flaky.sh\n+++ test_flaky.sh\n@@ -1,2 +1,2 @@\n"
            " ( sleep 0.01; echo ready > \"$out\" ) &\n-sleep 0.02\n+wait\n"
            " if [ \"$(cat \"$out\" 2>/dev/null)\" != ready ]; then\n")
ESCAPE = ("--- a/../../etc/passwd\n+++ b/../../etc/passwd\n@@ -1 +1 @@\n"
          "-root:x:0:0:root:/root:/bin/sh\n+root::0:0:root:/root:/bin/sh\n")
ABSOLUTE = ("--- /etc/passwd\n+++ /etc/passwd\n@@ -1 +1 @@\n"
            "-root:x:0:0:root:/root:/bin/sh\n+root::0:0:root:/root:/bin/sh\n")

lock = threading.Lock()
seen = {}
last429 = {}
logf = None


def log(entry):
    with lock:
        logf.write(json.dumps(entry) + "\n")
        logf.flush()


def chat(content, finish="stop"):
    return {"id": "fake", "object": "chat.completion", "model": "fake",
            "choices": [{"index": 0, "finish_reason": finish,
                         "message": {"role": "assistant", "content": content}}]}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def send(self, code, obj, extra=None):
        data = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        log({"event": "request", "method": "GET", "path": self.path,
             "headers": dict(self.headers.items())})
        self.send(404, {"error": {"message": "not found"}})

    def do_POST(self):
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n).decode("utf-8", "replace")
        try:
            body = json.loads(raw)
        except ValueError:
            body = raw
        log({"event": "request", "method": "POST", "path": self.path,
             "headers": dict(self.headers.items()), "body": body})
        if self.path != "/v1/chat/completions" or not isinstance(body, dict):
            self.send(404, {"error": {"message": "no such endpoint"}})
            return
        model = str(body.get("model", ""))
        mode = model.split("-")[0]
        with lock:
            seen[model] = seen.get(model, 0) + 1
            count = seen[model]
        answer = self.answer(mode, count, body)
        if answer is not None:
            self.send(200, answer)

    def answer(self, mode, count, body):
        if mode == "good":
            return chat(json.dumps(GOOD))
        if mode == "decoy":
            return chat(json.dumps(DECOY_ANSWER))
        if mode == "prose":
            return chat("Sure! Here is my diagnosis.\n\n```json\n" +
                        json.dumps(GOOD, indent=2) +
                        "\n```\n\nLet me know if you need anything else.")
        if mode == "wholefile":
            return chat(json.dumps({"cause_class": "race condition",
                                    "explanation": "Wait for the writer.",
                                    "file": FIXTURE_NAME,
                                    "content": FIXED.rstrip("\n")}))
        if mode == "patchwhole":
            return chat(json.dumps({"cause_class": "timing",
                                    "explanation": "Wait for the writer.",
                                    "patch": "```sh\n" + FIXED + "```"}))
        if mode == "miscount":
            return chat(json.dumps({"cause_class": "race_condition",
                                    "explanation": "Wait for the writer.",
                                    "patch": MISCOUNT}))
        if mode == "rawdiff":
            return chat("```diff\n" + GOOD["patch"] + "```\n")
        if mode == "nopatch":
            return chat(json.dumps({"cause_class": "shared_state",
                                    "explanation": "A file is shared."}))
        if mode == "truncated":
            text = json.dumps(GOOD)
            return chat(text[:len(text) // 2], finish="length")
        if mode == "flaky429":
            model = body.get("model")
            with lock:
                then = last429.get(model)
                early = then is not None and time.monotonic() - then < 1.0
                if count == 1 or early:
                    last429[model] = time.monotonic()
            if early:
                log({"event": "early", "model": model})
            if count == 1 or early:
                self.send(429, {"error": {"message": "slow down"}},
                          {"Retry-After": "1"})
                return None
            return chat(json.dumps(GOOD))
        if mode == "slow":
            time.sleep(0.5)
            self.send(200, chat(json.dumps(GOOD)))
            self.wfile.flush()
            log({"event": "reply", "model": body.get("model")})
            return None
        if mode == "namedwhole":
            return chat(json.dumps({"cause_class": "race_condition",
                                    "explanation": "Wait for the writer.",
                                    "file": FIXTURE_NAME, "patch": FIXED}))
        if mode == "wholeescape":
            return chat(json.dumps({"cause_class": "shared_state",
                                    "explanation": "Reset the account file.",
                                    "file": "../outside.sh",
                                    "content": "#!/bin/sh\nexit 0\n"}))
        if mode == "err500":
            self.send(500, {"error": {"message": "internal error"}})
            return None
        if mode == "nojsonmode":
            if "response_format" in body:
                self.send(400, {"error": {"message":
                                          "response_format is not supported"}})
                return None
            return chat(json.dumps(GOOD))
        if mode == "apierror":
            self.send(401, {"error": {"message": "invalid API key"}})
            return None
        if mode == "hang":
            time.sleep(30)
            return chat(json.dumps(GOOD))
        if mode == "big":
            return chat(json.dumps(dict(GOOD, explanation="x" * (2 << 20))))
        if mode == "escape":
            return chat(json.dumps({"cause_class": "shared_state",
                                    "explanation": "Reset the account file.",
                                    "patch": ESCAPE}))
        if mode == "absolute":
            return chat(json.dumps({"cause_class": "shared_state",
                                    "explanation": "Reset the account file.",
                                    "patch": ABSOLUTE}))
        if mode == "babble":
            return chat("I think it is probably a race, or maybe not.")
        if mode == "echo":
            auth = self.headers.get("Authorization", "")
            return chat(json.dumps(dict(GOOD, explanation="You sent " + auth)))
        self.send(404, {"error": {"message": "no model " + mode}})
        return None


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def verify_request(self, request, client_address):
        log({"event": "connect", "peer": client_address[0]})
        return True


def main():
    global logf
    args = sys.argv[1:]
    if len(args) == 2 and args[0] == "--fixture":
        path = os.path.join(args[1], FIXTURE_NAME)
        with open(path, "w") as f:
            f.write(FIXTURE)
        os.chmod(path, 0o755)
        return 0
    if len(args) != 2 or args[0] != "--log":
        sys.stderr.write(__doc__)
        return 2
    logf = open(args[1], "a")
    srv = Server(("127.0.0.1", 0), Handler)
    print(srv.server_address[1], flush=True)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""t/fake-github.py: a loopback stand-in for the part of the GitHub REST API
that rt-pr uses (GET /repos/O/R, GET and POST /repos/O/R/pulls).

  fake-github.py --log FILE [--mode MODE] [--bare DIR] [--default-branch B]

Listens on 127.0.0.1, port 0, and prints the port on the first line of
stdout. The expected token comes from the environment (FAKE_GITHUB_TOKEN),
never argv. Each request is logged to FILE as one JSON line: method, path,
query, whether the Authorization header carried the right token ("ok",
"bad", "none"), the parsed JSON body and the status sent. The token itself
is never logged.

Modes:
  ok    a well-behaved server (the default)
  401   every request: 401 Bad credentials
  422   POST pulls: 422 "A pull request already exists"; GET pulls finds none
  500   POST pulls: 500, after the GETs succeeded (a failure halfway through)

With --bare, POST pulls checks that the head branch exists in that bare
repository, as GitHub does (422 otherwise), and records its commit.
"""
import argparse
import json
import os
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs, urlsplit


class State:
    def __init__(self, args):
        self.args = args
        self.token = os.environ.get("FAKE_GITHUB_TOKEN", "")
        self.pulls = []
        self.lock = threading.Lock()


def branch_sha(bare, branch):
    r = subprocess.run(["git", "--git-dir", bare, "rev-parse", "--verify", "--quiet",
                        "refs/heads/" + branch], capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else None


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"   # so curl's Expect: 100-continue is answered

    def log_message(self, fmt, *a):
        pass

    def auth(self):
        h = self.headers.get("Authorization", "")
        if not h:
            return "none"
        for scheme in ("Bearer ", "token "):
            if h.startswith(scheme) and h[len(scheme):] == S.token and S.token:
                return "ok"
        return "bad"

    def reply(self, status, obj, entry):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        entry["status"] = status
        with S.lock, open(S.args.log, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def handle_any(self, method):
        u = urlsplit(self.path)
        q = parse_qs(u.query)
        body = None
        n = int(self.headers.get("Content-Length") or 0)
        if n:
            raw = self.rfile.read(n)
            try:
                body = json.loads(raw)
            except ValueError:
                body = {"unparsable": raw.decode("utf-8", "replace")}
        auth = self.auth()
        entry = {"method": method, "path": u.path,
                 "query": {k: v[0] for k, v in q.items()}, "auth": auth, "body": body}
        parts = u.path.strip("/").split("/")
        mode = S.args.mode
        if mode == "401" or auth != "ok":
            return self.reply(401, {"message": "Bad credentials",
                                    "documentation_url": "https://docs.github.com/rest"}, entry)
        if len(parts) < 3 or parts[0] != "repos":
            return self.reply(404, {"message": "Not Found"}, entry)
        owner, repo = parts[1], parts[2]
        if method == "GET" and len(parts) == 3:
            return self.reply(200, {"full_name": owner + "/" + repo,
                                    "default_branch": S.args.default_branch}, entry)
        if len(parts) != 4 or parts[3] != "pulls":
            return self.reply(404, {"message": "Not Found"}, entry)
        if method == "GET":
            head, state = q.get("head", [None])[0], q.get("state", ["open"])[0]
            found = [] if mode == "422" else [
                p for p in S.pulls
                if (head is None or p["head"]["label"] == head)
                and (state == "all" or p["state"] == state)]
            return self.reply(200, found, entry)
        if method != "POST":
            return self.reply(404, {"message": "Not Found"}, entry)
        if mode == "500":
            return self.reply(500, {"message": "Internal Server Error"}, entry)
        b = body if isinstance(body, dict) else {}
        missing = [k for k in ("title", "head", "base") if not b.get(k)]
        if missing:
            return self.reply(422, {"message": "Validation Failed",
                                    "errors": [{"resource": "PullRequest", "field": k,
                                                "code": "missing_field"} for k in missing]}, entry)
        label = b["head"] if ":" in b["head"] else owner + ":" + b["head"]
        ref = label.split(":", 1)[1]
        if mode == "422" or any(p["head"]["label"] == label and p["state"] == "open"
                                for p in S.pulls):
            return self.reply(422, {"message": "Validation Failed", "errors": [{
                "resource": "PullRequest", "code": "custom",
                "message": "A pull request already exists for %s." % label}]}, entry)
        sha = None
        if S.args.bare:
            sha = branch_sha(S.args.bare, ref)
            if not sha:
                return self.reply(422, {"message": "Validation Failed", "errors": [{
                    "resource": "PullRequest", "field": "head", "code": "invalid"}]}, entry)
        number = len(S.pulls) + 1
        pr = {"number": number, "state": "open", "title": b["title"], "body": b.get("body"),
              "draft": bool(b.get("draft")),
              "html_url": "https://github.example/%s/%s/pull/%d" % (owner, repo, number),
              "head": {"label": label, "ref": ref, "sha": sha}, "base": {"ref": b["base"]}}
        S.pulls.append(pr)
        entry["head_sha"] = sha
        return self.reply(201, pr, entry)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")


def main():
    global S
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--mode", default="ok", choices=["ok", "401", "422", "500"])
    ap.add_argument("--bare")
    ap.add_argument("--default-branch", default="main")
    S = State(ap.parse_args())
    srv = HTTPServer(("127.0.0.1", 0), Handler)
    print(srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

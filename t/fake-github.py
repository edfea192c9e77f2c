#!/usr/bin/env python3
"""t/fake-github.py: a loopback stand-in for the part of GitHub that rt-pr,
rt-quarantine and rt-audit use: the REST API (GET /repos/O/R, GET and POST
/repos/O/R/pulls, the issues and their comments below) and, with --bare,
git over smart HTTP at /O/R.git (git http-backend, Basic auth), the way
github.com serves both for an API at api.github.com.

  fake-github.py --log FILE [--git-log FILE] [--mode MODE] [--bare DIR]
                 [--default-branch B] [--seed-issues N [--repo O/R]]

Issues, in GitHub's shapes (number, id, html_url, title, body, state,
state_reason, comments, closed_at); pull requests and issues share one
sequence of numbers, as on GitHub:
  POST  /repos/O/R/issues                 201, the issue
  GET   /repos/O/R/issues?state=open|closed|all&per_page=N&page=P
                                          newest first, 30 a page by default
  GET   /repos/O/R/issues/N               the issue
  PATCH /repos/O/R/issues/N               title, body, state, state_reason
  POST  /repos/O/R/issues/N/comments      201, the comment (N: an issue or a
                                          pull request)
  GET   /repos/O/R/issues/N/comments?per_page=N&page=P   oldest first
  PATCH /repos/O/R/issues/comments/ID     the comment's body
--seed-issues N opens issues #1..#N on --repo (acme/cache) first ("filler N"), so a search pages
and a number exists to comment on. Every answer carries
X-RateLimit-Limit and X-RateLimit-Remaining.

Listens on 127.0.0.1, port 0, and prints the port on the first line of
stdout. The expected token comes from the environment (FAKE_GITHUB_TOKEN),
never argv. Each request is logged to FILE as one JSON line: method, path,
query, whether the Authorization header carried the right token ("ok",
"bad", "none"), the parsed JSON body and the status sent. The token itself
is never logged. The API also answers under /api/v3 (as GitHub Enterprise
Server does).

Modes:
  ok    a well-behaved server (the default)
  401   every request: 401 Bad credentials
  422   POST pulls: 422 "A pull request already exists"; GET pulls finds none
  500   POST pulls: 500, after the GETs succeeded (a failure halfway through)
  403   every API request: 403 "Resource not accessible by integration"
  ratelimit  every API request: 403 "API rate limit exceeded", with
        X-RateLimit-Remaining: 0
  429   every API request: 429 "You have exceeded a secondary rate limit",
        with X-RateLimit-Remaining: 0
  (422 also answers POST issues, PATCH issues and POST comments with 422
  Validation Failed)
  thief a server that must never see the token: every request is answered
        401 asking for Basic credentials, and logged with its Authorization
        header verbatim and any Basic credentials decoded ("authorization",
        "basic"), so a test can grep the log for the token

With --bare, POST pulls checks that the head branch exists in that bare
repository, as GitHub does (422 otherwise), and records its commit; and
/OWNER/REPO.git/... (any OWNER/REPO) is that repository over smart HTTP,
for Basic credentials whose password is the token (401 asking for them
otherwise). Those requests are logged to --git-log (default: --log) with
"git": true, the path, the user name and "auth" as for the API.
"""
import argparse
import base64
import binascii
import json
import os
import re
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
        self.issues = {}       # (owner, repo) -> [issue], oldest first
        self.comments = []     # every comment, with its issue's key
        self.next_number = {}  # (owner, repo) -> the next issue or pull number
        self.next_id = 1000
        self.lock = threading.Lock()

    def number(self, key):
        n = self.next_number.get(key, 1)
        self.next_number[key] = n + 1
        return n

    def new_id(self):
        self.next_id += 1
        return self.next_id


NOW = "2026-01-01T00:00:00Z"


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

    def basic(self):
        """The (user, password) of a Basic Authorization header, or None."""
        h = self.headers.get("Authorization", "")
        if not h.startswith("Basic "):
            return None
        try:
            user, _, pw = base64.b64decode(h[6:], validate=True).decode(
                "utf-8", "replace").partition(":")
        except (binascii.Error, ValueError):
            return None
        return user, pw

    def read_body(self):
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = b""
            while True:
                n = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if n == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return out
                out += self.rfile.read(n)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def log_entry(self, entry):
        log = S.args.git_log if entry.get("git") and S.args.git_log else S.args.log
        with S.lock, open(log, "a") as f:
            f.write(json.dumps(entry) + "\n")

    def send_raw(self, status, headers, data):
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)

    def thief(self, method):
        u = urlsplit(self.path)
        raw = self.read_body()
        b = self.basic()
        entry = {"method": method, "path": u.path, "query": u.query,
                 "authorization": self.headers.get("Authorization"),
                 "basic": list(b) if b else None,
                 "body": raw.decode("utf-8", "replace"), "status": 401}
        self.send_raw(401, [("WWW-Authenticate", 'Basic realm="thief"')], b"who are you?\n")
        self.log_entry(entry)

    def git(self, method, owner, repo, rest):
        u = urlsplit(self.path)
        raw = self.read_body()
        b = self.basic()
        auth = "none" if not self.headers.get("Authorization") else \
            "ok" if b and S.token and b[1] == S.token else "bad"
        entry = {"git": True, "method": method, "path": u.path, "query": u.query,
                 "repo": owner + "/" + repo, "auth": auth, "user": b[0] if b else None}
        if auth != "ok":
            self.send_raw(401, [("WWW-Authenticate", 'Basic realm="GitHub"')], b"")
            entry["status"] = 401
            return self.log_entry(entry)
        bare = os.path.abspath(S.args.bare)
        env = dict(os.environ, GIT_PROJECT_ROOT=os.path.dirname(bare), GIT_HTTP_EXPORT_ALL="1",
                   PATH_INFO="/" + os.path.basename(bare) + rest, QUERY_STRING=u.query,
                   REQUEST_METHOD=method, REMOTE_USER=b[0], REMOTE_ADDR="127.0.0.1",
                   CONTENT_TYPE=self.headers.get("Content-Type", ""),
                   CONTENT_LENGTH=str(len(raw)))
        for h, v in (("Git-Protocol", "GIT_PROTOCOL"),
                     ("Content-Encoding", "HTTP_CONTENT_ENCODING")):
            if self.headers.get(h):
                env[v] = self.headers[h]
        r = subprocess.run(["git", "http-backend"], input=raw, env=env, capture_output=True)
        head, sep, data = r.stdout.partition(b"\r\n\r\n")
        if not sep:
            head, sep, data = r.stdout.partition(b"\n\n")
        status, headers = 200, []
        for line in head.decode("latin-1").splitlines():
            k, _, v = line.partition(":")
            if k.lower() == "status":
                status = int(v.split()[0])
            elif k:
                headers.append((k, v.strip()))
        self.send_raw(status, headers, data)
        entry["status"] = status
        self.log_entry(entry)

    def reply(self, status, obj, entry, remaining=4999):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("X-RateLimit-Limit", "5000")
        self.send_header("X-RateLimit-Remaining", str(remaining))
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        self.end_headers()
        self.wfile.write(data)
        entry["status"] = status
        self.log_entry(entry)

    def handle_any(self, method):
        if S.args.mode == "thief":
            return self.thief(method)
        u = urlsplit(self.path)
        g = re.match(r"^/([^/]+)/([^/]+)\.git(/.*)$", u.path)
        if g and S.args.bare:
            return self.git(method, g.group(1), g.group(2), g.group(3))
        q = parse_qs(u.query)
        body = None
        path = u.path[7:] if u.path.startswith("/api/v3/") else u.path
        raw = self.read_body()
        if raw:
            try:
                body = json.loads(raw)
            except ValueError:
                body = {"unparsable": raw.decode("utf-8", "replace")}
        auth = self.auth()
        entry = {"method": method, "path": u.path,
                 "query": {k: v[0] for k, v in q.items()}, "auth": auth, "body": body}
        parts = path.strip("/").split("/")
        mode = S.args.mode
        if mode == "401" or auth != "ok":
            return self.reply(401, {"message": "Bad credentials",
                                    "documentation_url": "https://docs.github.com/rest"}, entry)
        if mode == "403":
            return self.reply(403, {"message": "Resource not accessible by integration",
                                    "documentation_url": "https://docs.github.com/rest"}, entry)
        if mode == "ratelimit":
            return self.reply(403, {"message": "API rate limit exceeded for installation ID 1.",
                                    "documentation_url": "https://docs.github.com/rest"},
                              entry, remaining=0)
        if mode == "429":
            return self.reply(429, {"message": "You have exceeded a secondary rate limit.",
                                    "documentation_url": "https://docs.github.com/rest"},
                              entry, remaining=0)
        if len(parts) < 3 or parts[0] != "repos":
            return self.reply(404, {"message": "Not Found"}, entry)
        owner, repo = parts[1], parts[2]
        if len(parts) >= 4 and parts[3] == "issues":
            return self.issues(method, owner, repo, parts[4:], q, body, entry)
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
        number = S.number((owner, repo))
        pr = {"number": number, "state": "open", "title": b["title"], "body": b.get("body"),
              "draft": bool(b.get("draft")),
              "html_url": "https://github.example/%s/%s/pull/%d" % (owner, repo, number),
              "head": {"label": label, "ref": ref, "sha": sha}, "base": {"ref": b["base"]}}
        S.pulls.append(pr)
        entry["head_sha"] = sha
        return self.reply(201, pr, entry)

    def page(self, items, q, entry):
        try:
            per = max(1, min(100, int(q.get("per_page", ["30"])[0])))
            page = max(1, int(q.get("page", ["1"])[0]))
        except ValueError:
            return self.reply(422, {"message": "Validation Failed"}, entry)
        return self.reply(200, items[(page - 1) * per:page * per], entry)

    def issues(self, method, owner, repo, rest, q, body, entry):
        key = (owner, repo)
        b = body if isinstance(body, dict) else {}
        with S.lock:
            mine = S.issues.setdefault(key, [])
        def find(n):
            return next((i for i in mine if str(i["number"]) == n), None)
        def invalid(resource, field):
            return self.reply(422, {"message": "Validation Failed", "errors": [{
                "resource": resource, "field": field, "code": "invalid"}],
                "documentation_url": "https://docs.github.com/rest"}, entry)
        if not rest:
            if method == "GET":
                state = q.get("state", ["open"])[0]
                found = [i for i in reversed(mine) if state == "all" or i["state"] == state]
                return self.page(found, q, entry)
            if method != "POST":
                return self.reply(404, {"message": "Not Found"}, entry)
            if S.args.mode == "422" or not isinstance(b.get("title"), str) or not b["title"]:
                return invalid("Issue", "title")
            with S.lock:
                issue = new_issue(owner, repo, S.number(key), b["title"], b.get("body"))
                mine.append(issue)
            return self.reply(201, issue, entry)
        if rest[0] == "comments" and len(rest) == 2 and method == "PATCH":
            c = next((c for c in S.comments if str(c["id"]) == rest[1] and c["key"] == key), None)
            if not c:
                return self.reply(404, {"message": "Not Found"}, entry)
            if S.args.mode == "422" or not isinstance(b.get("body"), str):
                return invalid("IssueComment", "body")
            c["body"], c["updated_at"] = b["body"], NOW
            return self.reply(200, public(c), entry)
        issue = find(rest[0])
        pull = next((p for p in S.pulls if str(p["number"]) == rest[0]
                     and p["html_url"].startswith("https://github.example/%s/%s/" % key)), None)
        if len(rest) == 1:
            if not issue:
                return self.reply(404, {"message": "Not Found"}, entry)
            if method == "GET":
                return self.reply(200, issue, entry)
            if method != "PATCH":
                return self.reply(404, {"message": "Not Found"}, entry)
            if S.args.mode == "422" or b.get("state", "open") not in ("open", "closed"):
                return invalid("Issue", "state")
            for k in ("title", "body"):
                if k in b:
                    issue[k] = b[k]
            if "state" in b:
                issue["state"] = b["state"]
                issue["closed_at"] = NOW if b["state"] == "closed" else None
                issue["state_reason"] = b.get("state_reason") or \
                    ("completed" if b["state"] == "closed" else "reopened")
            issue["updated_at"] = NOW
            return self.reply(200, issue, entry)
        if len(rest) == 2 and rest[1] == "comments":
            if not issue and not pull:
                return self.reply(404, {"message": "Not Found"}, entry)
            if method == "GET":
                mine_c = [public(c) for c in S.comments
                          if c["key"] == key and c["number"] == int(rest[0])]
                return self.page(mine_c, q, entry)
            if method != "POST":
                return self.reply(404, {"message": "Not Found"}, entry)
            if S.args.mode == "422" or not isinstance(b.get("body"), str) or not b["body"]:
                return invalid("IssueComment", "body")
            with S.lock:
                cid = S.new_id()
                c = {"key": key, "number": int(rest[0]), "id": cid,
                     "html_url": "https://github.example/%s/%s/issues/%s#issuecomment-%d"
                     % (owner, repo, rest[0], cid),
                     "issue_url": "https://api.github.example/repos/%s/%s/issues/%s"
                     % (owner, repo, rest[0]),
                     "body": b["body"], "user": {"login": "retrial-bot"},
                     "created_at": NOW, "updated_at": NOW}
                S.comments.append(c)
                if issue:
                    issue["comments"] += 1
            return self.reply(201, public(c), entry)
        return self.reply(404, {"message": "Not Found"}, entry)

    def do_GET(self):
        self.handle_any("GET")

    def do_POST(self):
        self.handle_any("POST")

    def do_PATCH(self):
        self.handle_any("PATCH")


def new_issue(owner, repo, number, title, body):
    return {"id": S.new_id(), "number": number, "title": title, "body": body,
            "state": "open", "state_reason": None, "comments": 0, "labels": [],
            "user": {"login": "retrial-bot"}, "created_at": NOW, "updated_at": NOW,
            "closed_at": None,
            "url": "https://api.github.example/repos/%s/%s/issues/%d" % (owner, repo, number),
            "html_url": "https://github.example/%s/%s/issues/%d" % (owner, repo, number)}


def public(c):
    """A comment as GitHub shows it (without the fake's own keys)."""
    return {k: v for k, v in c.items() if k not in ("key", "number")}


def main():
    global S
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--mode", default="ok", choices=["ok", "401", "403", "422", "429", "500",
                                                    "ratelimit", "thief"])
    ap.add_argument("--git-log")
    ap.add_argument("--bare")
    ap.add_argument("--default-branch", default="main")
    ap.add_argument("--seed-issues", type=int, default=0)
    ap.add_argument("--repo", default="acme/cache", help="where --seed-issues opens them")
    S = State(ap.parse_args())
    o, r = S.args.repo.split("/", 1)
    for _ in range(S.args.seed_issues):
        n = S.number((o, r))
        S.issues.setdefault((o, r), []).append(new_issue(o, r, n, "filler %d" % n, "filler"))
    srv = HTTPServer(("127.0.0.1", 0), Handler)
    print(srv.server_address[1], flush=True)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()

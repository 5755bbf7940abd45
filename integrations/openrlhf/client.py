#!/usr/bin/env python3
"""Try krl serve's OpenRLHF endpoint by hand: sends what OpenRLHF sends.

    python3 integrations/openrlhf/client.py --task level1/19_relu answer.md [...]

Each file is one completion (a model's answer with a fenced code block).
Prints the server's JSON answer: {"rewards": [...], "scores": [...],
"verdicts": [...], ...}. Uses KRL_SERVE_URL and KRL_SERVE_TOKEN.
"""
import argparse
import json
import os
import sys
import urllib.error
import urllib.request


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", default=os.environ.get("KRL_SERVE_URL",
                                                   "http://127.0.0.1:8750"))
    p.add_argument("--task", required=True, help="kernelrl task id")
    p.add_argument("--prompt", default=None,
                   help="a file with the prompt the completions answer")
    p.add_argument("completions", nargs="+")
    a = p.parse_args()
    queries = []
    for path in a.completions:
        with open(path, encoding="utf-8") as f:
            queries.append(f.read())
    body = {"query": queries, "labels": [a.task] * len(queries)}
    if a.prompt:
        with open(a.prompt, encoding="utf-8") as f:
            prompt = f.read()
        body["query"] = [prompt + q for q in queries]
        body["prompts"] = [prompt] * len(queries)
    headers = {"Content-Type": "application/json"}
    if os.environ.get("KRL_SERVE_TOKEN"):
        headers["Authorization"] = "Bearer " + os.environ["KRL_SERVE_TOKEN"]
    req = urllib.request.Request(a.url.rstrip("/") + "/reward",
                                 data=json.dumps(body).encode(),
                                 headers=headers, method="POST")
    try:
        with urllib.request.urlopen(req, timeout=900) as r:
            print(r.read().decode())
    except urllib.error.HTTPError as e:
        print("krl serve: %d %s" % (e.code, e.read().decode(errors="replace")),
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

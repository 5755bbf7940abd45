#!/usr/bin/env python3
"""The integrations/ examples against a running krl serve (judge stand-in),
with the recorded-completion server as the policy; run by
tests/service/test_integrations.c, which starts both and sets
KRL_SERVE_URL, KRL_SERVE_TOKEN and KRL_LLM_BASE_URL.

The server answers raw rewards (--reward raw): speedup - 1 for a correct
candidate, -1 for anything else.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
TASK = "level1/19_relu"
PROMPT = ("Make relu faster. An earlier version, 9x faster:\n```cuda\n"
          "//@standin ok 9.0\n```\n")


def load(path, name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, path))
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    return m


def complete(case):
    """A completion from the recorded-completion server (the policy)."""
    body = {"model": "mock", "messages": [
        {"role": "system", "content": "You write CUDA kernels."},
        {"role": "user", "content": PROMPT + "case " + case}]}
    req = urllib.request.Request(
        os.environ["KRL_LLM_BASE_URL"] + "/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        return json.loads(r.read())["choices"][0]["message"]["content"]


def near(a, b):
    return abs(a - b) < 1e-9


def main():
    failures = []

    def check(cond, what):
        print(("ok   " if cond else "FAIL ") + what)
        if not cond:
            failures.append(what)

    want = {"good": (1.0, 1.0), "wrong": (-1.0, 0.0), "none": (-1.0, 0.0)}
    texts = {c: complete(c) for c in want}

    # verl: compute_score on the response text, the task as ground truth
    verl = load("integrations/verl/krl_reward.py", "krl_reward")
    for case, (reward, correct) in want.items():
        s = verl.compute_score("kernelrl", texts[case], TASK, {"index": 0})
        check(near(s["score"], reward) and near(s["correct"], correct),
              "verl compute_score %s -> %s" % (case, s))
    s = verl.compute_score("kernelrl", texts["good"], "", {"task": TASK})
    check(near(s["score"], 1.0), "verl: the task from extra_info")

    # OpenRLHF: the reward function file, queries = prompt + response
    rf = load("integrations/openrlhf/krl_reward_func.py", "krl_reward_func")
    cases = list(want)
    out = rf.reward_func([PROMPT + texts[c] for c in cases],
                         [PROMPT] * len(cases), [TASK] * len(cases))
    check([round(x, 9) for x in out["rewards"]] ==
          [want[c][0] for c in cases] and
          out["scores"] == [want[c][1] for c in cases],
          "openrlhf reward_func %s" % out)

    # OpenRLHF's own HTTP call: the body it posts, no headers but the type
    # (this server asks for a token: 401), then with the token
    body = json.dumps({"query": [PROMPT + texts["good"]], "prompts": [PROMPT],
                       "labels": [TASK]}).encode()
    url = os.environ["KRL_SERVE_URL"] + "/reward"
    try:
        urllib.request.urlopen(urllib.request.Request(
            url, data=body, headers={"Content-Type": "application/json"},
            method="POST"), timeout=30)
        check(False, "no token: 401")
    except urllib.error.HTTPError as e:
        check(e.code == 401, "no token: %d" % e.code)

    # the tiny client
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for c in ("good", "wrong"):
            p = os.path.join(d, c + ".md")
            with open(p, "w") as f:
                f.write(texts[c])
            paths.append(p)
        pp = os.path.join(d, "prompt.md")
        with open(pp, "w") as f:
            f.write(PROMPT)
        r = subprocess.run([sys.executable, os.path.join(
            ROOT, "integrations/openrlhf/client.py"), "--task", TASK,
            "--prompt", pp] + paths, capture_output=True, text=True,
            timeout=60)
        ans = json.loads(r.stdout) if r.returncode == 0 else {}
        check(ans.get("verdicts") == ["ok", "wrong_output"] and
              [round(x, 9) for x in ans.get("rewards", [])] == [1.0, -1.0],
              "openrlhf client.py -> %s %s" % (r.stdout.strip(),
                                               r.stderr.strip()))
    print("%d failure(s)" % len(failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

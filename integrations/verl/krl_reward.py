"""kernelrl's judge as a verl reward function (integrations/README.md).

In the verl config:

    custom_reward_function:
      path: integrations/verl/krl_reward.py
      name: compute_score

Each sample's ``ground_truth`` (``reward_model.ground_truth`` in the
dataset) is the kernelrl task id, e.g. ``level1/19_relu``; ``extra_info``
may name it instead (``{"task": ...}``). The response text goes to
``krl serve``'s ``/reward``, which extracts the candidate exactly as
``krl optimize --policy llm`` does, judges it, stores the evaluation and
answers the reward ``krl optimize`` uses (docs/serve.md).

Environment: KRL_SERVE_URL (default http://127.0.0.1:8750),
KRL_SERVE_TOKEN (the bearer token, if the server asks for one),
KRL_SERVE_TIMEOUT (seconds per call, default 900).
"""
import json
import os
import time
import urllib.error
import urllib.request


def _post(path, body):
    url = os.environ.get("KRL_SERVE_URL", "http://127.0.0.1:8750").rstrip("/")
    token = os.environ.get("KRL_SERVE_TOKEN")
    timeout = float(os.environ.get("KRL_SERVE_TIMEOUT", "900"))
    data = json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    for attempt in range(8):
        req = urllib.request.Request(url + path, data=data, headers=headers,
                                     method="POST")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            # a full queue or a restarting server: wait as told, try again
            if e.code in (429, 503) and attempt < 7:
                time.sleep(float(e.headers.get("Retry-After") or 1))
                continue
            raise RuntimeError("krl serve %s: %d %s" % (
                path, e.code, e.read().decode(errors="replace"))) from None


def compute_score(data_source, solution_str, ground_truth, extra_info=None,
                  **kwargs):
    """The reward of one response: a dict verl logs, its "score" the reward.

    "correct" is 1.0 when the judge's verdict is ok, "speedup" the measured
    speedup (0 unless correct).
    """
    task = ground_truth
    if isinstance(extra_info, dict) and extra_info.get("task"):
        task = extra_info["task"]
    if not isinstance(task, str) or not task:
        raise ValueError("krl_reward: no task id in ground_truth or "
                         "extra_info['task']")
    r = _post("/reward", {"query": [solution_str], "labels": [task]})
    return {
        "score": float(r["rewards"][0]),
        "correct": float(r["scores"][0]),
        "speedup": float(r["speedups"][0]),
    }

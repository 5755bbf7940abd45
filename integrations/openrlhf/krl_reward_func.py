"""kernelrl's judge as an OpenRLHF reward function file.

OpenRLHF posts to a plain URL without headers, so a `krl serve` that asks
for a bearer token (any non-loopback one does) is reached through this file
instead:

    --reward.remote_url integrations/openrlhf/krl_reward_func.py
    (older releases: --remote_rm_url integrations/openrlhf/krl_reward_func.py)
    --label_key task          # the dataset field holding the kernelrl task id

OpenRLHF calls reward_func(queries, prompts, labels) with each query the
prompt and the response decoded together; krl serve takes the response after
the prompt, extracts the candidate as the LLM policy does and judges it.

Environment: KRL_SERVE_URL (default http://127.0.0.1:8750), KRL_SERVE_TOKEN,
KRL_SERVE_TIMEOUT (seconds, default 900).
"""
import json
import os
import time
import urllib.error
import urllib.request


def _post(body):
    url = os.environ.get("KRL_SERVE_URL", "http://127.0.0.1:8750").rstrip("/")
    token = os.environ.get("KRL_SERVE_TOKEN")
    timeout = float(os.environ.get("KRL_SERVE_TIMEOUT", "900"))
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = json.dumps(body).encode()
    for attempt in range(8):
        req = urllib.request.Request(url + "/reward", data=data,
                                     headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return json.loads(r.read())
        except urllib.error.HTTPError as e:
            if e.code in (429, 503) and attempt < 7:
                time.sleep(float(e.headers.get("Retry-After") or 1))
                continue
            raise RuntimeError("krl serve /reward: %d %s" % (
                e.code, e.read().decode(errors="replace"))) from None


def reward_func(queries, prompts, labels, **kwargs):
    """{"rewards": [...], "scores": [...], "extra_logs": {...}}, as
    OpenRLHF's reward functions return (lists of floats: OpenRLHF turns
    them into tensors)."""
    r = _post({"query": list(queries), "prompts": list(prompts),
               "labels": list(labels)})
    return {
        "rewards": r["rewards"],
        "scores": r["scores"],
        "extra_logs": {"speedup": r["speedups"]},
    }

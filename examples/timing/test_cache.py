#!/usr/bin/env python3
"""The cache must hold the warmed-up value by the time the test reads it:
a stale read means callers would see old data right after start-up."""
import os
import random
import sys
import threading
import time


def warm(cache, rng):
    time.sleep(rng.uniform(0.0, 0.040))  # the warm-up takes 0-40 ms
    cache["value"] = "fresh"


def test_cache_is_fresh(rng):
    cache = {"value": "stale"}
    worker = threading.Thread(target=warm, args=(cache, rng))
    worker.start()
    time.sleep(0.025)  # long enough on my machine
    value = cache["value"]
    worker.join()
    if value != "fresh":
        print("cache: STALE value read before warm-up finished", file=sys.stderr)
        return 1
    print("cache is fresh")
    return 0


if __name__ == "__main__":
    seed = os.environ.get("RETRIAL_SEED")
    rng = random.Random(int(seed) if seed else None)
    sys.exit(test_cache_is_fresh(rng))

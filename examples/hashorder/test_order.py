#!/usr/bin/env python3
"""The registry lists its names in the order they were registered."""
import sys


def test_names_in_order():
    names = {"alpha", "beta", "gamma"}
    got = ",".join(names)
    if got != "alpha,beta,gamma":
        print(f"order: MISMATCH got {got}", file=sys.stderr)
        return 1
    print("order ok")
    return 0


if __name__ == "__main__":
    sys.exit(test_names_in_order())

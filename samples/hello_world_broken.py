"""hello_world_broken: the hello_world kernel against a golden that disagrees (x - a).

A deliberately failing run: it ends with the mismatch report and exit status 1.
    pypto-golden samples/hello_world_broken.py -p a2a3sim
"""

import hello_world


def golden_subtracts(values):
    values["y"][:] = values["x"] - values["a"]


if __name__ == "__main__":
    hello_world.main(golden_fn=golden_subtracts)

"""The soak test: the whole service under load, with faults (the code is the package bench/soak/).

Usage: python bench/soak.py [--minutes 10 | --moves N] [--games 200] [--folder DIR] [options]
(`--help` lists them; bench/soak/__init__.py says what the soak does and where each part is.)
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # pbem, engine, worker and tests.support, as the other bench scripts do

# This script and the package bench/soak/ share a name. The script only runs (as __main__) and is
# never imported; `bench.soak` below is the package, because when a folder holds both soak/ (with an
# __init__.py) and soak.py, the import system takes the package (the search order of PEP 420:
# regular package, then module, then namespace package). The package's own processes
# (`python -m bench.soak.celery_child`) rely on the same order.
from bench.soak.run import main  # noqa: E402 - after the repository root is on sys.path

if __name__ == "__main__":
    sys.exit(main())

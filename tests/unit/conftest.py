"""The unit tests mirror the package (tests/unit/<package>/ for python/bloomery/<package>/); the
helpers they share (spec_trees.py) sit here, importable from every folder."""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

"""Which libblosc2 a Python process has loaded: the one fact every harness that runs
python-blosc2 on a chosen library checks before trusting its results.

Imported by bench/python/workloads.py, scripts/plugin_wheels_check.py,
scripts/python_downstream_plugin.py and scripts/python-downstream.sh (each puts this folder on
sys.path or copies this file beside the importer). Dependency-free.
"""

import os


def mapped_libblosc2(maps_path="/proc/self/maps"):
    """Real paths of the libblosc2 library files (`libblosc2.so...`, not the
    `libblosc2_<plugin>.so` plugins) mapped into this process, sorted."""
    libs = set()
    with open(maps_path) as maps:
        for line in maps:
            fields = line.split(None, 5)
            if len(fields) == 6 and os.path.basename(fields[5].strip()).startswith("libblosc2."):
                libs.add(os.path.realpath(fields[5].strip()))
    return sorted(libs)

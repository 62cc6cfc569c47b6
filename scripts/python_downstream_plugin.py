"""pytest plugin for scripts/python-downstream.sh (loaded with `-p python_downstream_plugin`).

Driven by environment variables the script sets:

RBLOSC2_DS_EXPECT_LIB   the libblosc2.so.9 that every pytest process (the xdist controller and
                        each worker) must map after `import blosc2`, and no other libblosc2.
                        A process that maps anything else writes RBLOSC2_DS_OUT/wrong-library.txt
                        and exits at once with status 3: results from another library are
                        worthless.
RBLOSC2_DS_OUT          directory for results.jsonl: one JSON line per test report phase
                        (written by the controller only, which sees every worker's reports,
                        including the one xdist makes up for a test whose worker crashed).
RBLOSC2_DS_COLLECT_LOG  (collection pass) file to log "start PATH" / "done PATH" for each test
                        file, so that when importing a file kills the process the script knows
                        which one it was; the selected test ids then go to
                        RBLOSC2_DS_OUT/collected.txt and collection errors to
                        RBLOSC2_DS_OUT/results.jsonl.
"""

import json
import os

import pytest
from mapped_libblosc2 import mapped_libblosc2


def _is_worker(config):
    return hasattr(config, "workerinput")


def pytest_configure(config):
    expected = os.environ.get("RBLOSC2_DS_EXPECT_LIB")
    if expected:
        import blosc2  # noqa: F401 - loads libblosc2 so that it shows in the maps

        mapped = mapped_libblosc2()
        if mapped != [os.path.realpath(expected)]:
            who = config.workerinput["workerid"] if _is_worker(config) else "controller"
            out = os.environ.get("RBLOSC2_DS_OUT", ".")
            with open(os.path.join(out, "wrong-library.txt"), "a") as f:
                f.write(f"{who} (pid {os.getpid()}): maps {mapped or 'no libblosc2'}, "
                        f"expected {expected}\n")
            os._exit(3)
    config.pluginmanager.register(_Recorder(config), "rblosc2_ds_recorder")
    if config.pluginmanager.hasplugin("xdist") and not _is_worker(config):
        config.pluginmanager.register(_CrashTolerantLoadFile(), "rblosc2_ds_scheduler")


class _CrashTolerantLoadFile:
    """`--dist loadfile` scheduling that goes on after workers crash.

    xdist's own loadfile scheduler, when a worker dies, (1) puts the worker's unfinished file
    back in the queue with the test that killed it still to run, so the replacement worker
    runs it first and dies again, until --max-worker-restart is used up and the rest of the
    suite never runs; and (2) when one replacement finishes collecting while another is still
    collecting, hands work to the one still collecting and dies on a KeyError (INTERNALERROR),
    ending the run. The subclass made here marks the crashed test done before anything is
    rescheduled, and gives work only to workers whose collection has arrived (the others get
    theirs when it does).
    """

    @pytest.hookimpl(tryfirst=True)
    def pytest_xdist_make_scheduler(self, config, log):
        if config.getvalue("dist") != "loadfile":
            return None
        from xdist.scheduler import LoadFileScheduling

        class Scheduler(LoadFileScheduling):
            holding = False

            def _reschedule(self, node):
                if self.holding or node not in self.registered_collections:
                    return
                super()._reschedule(node)

            def remove_node(self, node):
                self.holding = True
                try:
                    crashed = super().remove_node(node)
                finally:
                    self.holding = False
                if crashed is not None:
                    for scope, unit in list(self.workqueue.items()):
                        if unit.get(crashed) is False:
                            unit[crashed] = True
                        if all(unit.values()):
                            del self.workqueue[scope]
                    for other in self.nodes:
                        self._reschedule(other)
                return crashed

        return Scheduler(config, log)


def _short_message(report):
    """One line saying why a phase failed or was skipped."""
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple):  # skip: (path, line, reason)
        return str(longrepr[2])
    crash = getattr(longrepr, "reprcrash", None)
    text = crash.message if crash is not None and crash.message else str(longrepr)
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return (lines[0] if lines else "")[:400]


class _Recorder:
    def __init__(self, config):
        self.results = None
        out = os.environ.get("RBLOSC2_DS_OUT")
        if out and not _is_worker(config):
            self.results = open(os.path.join(out, "results.jsonl"), "a", buffering=1)
        log = os.environ.get("RBLOSC2_DS_COLLECT_LOG")
        self.collect_log = open(log, "a", buffering=1) if log else None

    def _write(self, record):
        if self.results is not None:
            self.results.write(json.dumps(record) + "\n")

    def pytest_runtest_logreport(self, report):
        self._write({
            "id": report.nodeid,
            "when": report.when,
            "outcome": report.outcome,
            "xfail": hasattr(report, "wasxfail"),
            "msg": _short_message(report) if report.outcome != "passed" else "",
        })

    def pytest_collectstart(self, collector):
        if self.collect_log is not None and isinstance(collector, pytest.File):
            self.collect_log.write(f"start {collector.nodeid}\n")
            self.collect_log.flush()

    def pytest_collection_finish(self, session):
        if self.collect_log is not None:
            out = os.environ["RBLOSC2_DS_OUT"]
            with open(os.path.join(out, "collected.txt"), "w") as f:
                f.writelines(item.nodeid + "\n" for item in session.items)

    def pytest_collectreport(self, report):
        if self.collect_log is not None and report.nodeid and "::" not in report.nodeid:
            self.collect_log.write(f"done {report.nodeid}\n")
        if report.failed:
            # a file that cannot be imported: its tests never exist
            self._write({"id": report.nodeid, "when": "collect", "outcome": "failed",
                         "xfail": False, "msg": _short_message(report)})

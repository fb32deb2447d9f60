"""Tests of a symmetric workload (`workload gen --symmetric`: one
representative per class of ranks, top-level x-symmetry; docs/symmetry.md)
through the module: simulate() and store() give every device of the
cluster the results of `baechi sim --json` (the representatives checked
against the cluster and expanded, not the other replicas' devices left
empty); a placer's own placement and a cluster the replicas do not fit are
refused with baechi.Error, as `baechi place` and `baechi sim` refuse them."""

import json
import sqlite3

import baechi

from clitest import TmpDirCase, cli

GEN_CLI = ["gpt", "--layers", "4", "--d-model", "64", "--heads", "8", "--vocab", "128",
           "--seq", "16", "--batch", "4", "--dropout", "0", "--device", "h100",
           "--dp", "4", "--tp", "2", "--pp", "2"]
CLUSTER = "dgx-h100-2x8"


def devices_of(devs):
    return [(d["id"], d["n_ops"], d["busy_us"], d["peak_bytes"], d["final_bytes"]) for d in devs]


class TestSymmetric(TmpDirCase):
    def setUp(self):
        super().setUp()
        self.wpath = self.path("s.yaml")
        cli("workload", "gen", *GEN_CLI, "--symmetric", "-o", self.wpath)
        self.w = baechi.load_workload(self.wpath)
        self.c = baechi.cluster(CLUSTER)

    def test_simulate_as_sim(self):
        p = baechi.place(self.w, self.c, "given")
        for model in ("timed", "baechi"):
            ref = json.loads(cli("sim", "--json", "-w", self.wpath, "-c", CLUSTER,
                                 "--placement", "given", "--model", model))
            r = baechi.simulate(self.w, self.c, p, model=model)
            self.assertEqual(r.step_us, ref["step_us"])
            self.assertEqual(len(r.devices), 16)
            got = devices_of([d.__dict__ for d in r.devices])
            self.assertEqual(got, devices_of(ref["devices"]))
            # the middle replicas (2, 3 of 4) are represented, never empty
            self.assertTrue(all(d.n_ops > 0 for d in r.devices))

    def test_store_as_sim(self):
        p = baechi.place(self.w, self.c, "given")
        db = self.path("r.db")
        baechi.store(db, self.w, self.c, p)
        ref = json.loads(cli("sim", "--json", "-w", self.wpath, "-c", CLUSTER,
                             "--placement", "given"))
        con = sqlite3.connect(db)
        try:
            (rid, step), = con.execute("SELECT id, step_us FROM runs WHERE sim_model = 'timed'")
            rows = con.execute("SELECT device, peak_bytes FROM devices WHERE run_id = ? "
                               "ORDER BY device", (rid,)).fetchall()
        finally:
            con.close()
        self.assertEqual(step, ref["step_us"])
        self.assertEqual(rows, [(d["id"], d["peak_bytes"]) for d in ref["devices"]])

    def test_placer_refused(self):
        p = baechi.place(self.w, self.c, "m-topo")
        with self.assertRaisesRegex(baechi.Error, r"^not symmetric: '.*' is replica 0 of 4 "
                                    r"\(parallelize --symmetric\).*placer 'm-topo'"):
            baechi.simulate(self.w, self.c, p)
        with self.assertRaisesRegex(baechi.Error, r"^not symmetric: .*placer 'm-topo'"):
            baechi.store(self.path("r.db"), self.w, self.c, p)

    def test_cluster_refused(self):
        text = cli("workload", "gen", *GEN_CLI[:-6], "--dp", "3", "--tp", "2", "--pp", "2",
                   "--symmetric")
        w3 = baechi.parse_workload(text)
        p = baechi.place(w3, self.c, "given")
        with self.assertRaisesRegex(baechi.Error, r"^not symmetric: the link 2 -> 8 of "
                                    r"replica 1 differs from its replica-0 link 0 -> 6"):
            baechi.simulate(w3, self.c, p)
